#!/bin/sh
# `meson install` as a user runs it: configure the source tree with a
# --prefix in a temporary directory, build, install, then run the installed
# `dungeon` from an unrelated directory, with no DUNGEON_ROOMSETS and no
# config/roomsets around, so the room sets can only come from the prefix.
# Usage: test_install.sh SOURCE_DIR. Prints TAP.
set -u
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
failed=0
check() { # description, then a shell condition
  n=$((n + 1))
  description=$1
  shift
  if "$@" >/dev/null 2>&1; then
    echo "ok $n - $description"
  else
    echo "not ok $n - $description"
    for f in "$work/log" "$work/out" "$work/err"; do
      [ -f "$f" ] && echo "# $(basename "$f"): $(tail -c 600 "$f" | tr '\n' ' ')"
    done
    failed=$((failed + 1))
  fi
}

prefix="$work/prefix"
# -O0 and no test suites: this checks what is installed, not how fast.
meson setup "$work/build" "$source_dir" --prefix="$prefix" -Dtests=false \
  -Dbuildtype=plain -Dwerror=true >"$work/log" 2>&1 &&
  meson compile -C "$work/build" >>"$work/log" 2>&1
check "configure and build with --prefix" [ $? -eq 0 ]
meson install -C "$work/build" >"$work/log" 2>&1
check "meson install exits 0" [ $? -eq 0 ]
check "dungeon installed in bindir" [ -x "$prefix/bin/dungeon" ]
check "dungeond installed in bindir" [ -x "$prefix/bin/dungeond" ]
check "room sets installed in share/dungeond/roomsets" \
  [ -f "$prefix/share/dungeond/roomsets/crypt.json" -a -f "$prefix/share/dungeond/roomsets/sewer.json" ]
check "the Tiled tileset image installed" [ -f "$prefix/share/dungeond/tiled/dungeond-tiles.png" ]
check "the Tiled progression tileset installed" [ -f "$prefix/share/dungeond/tiled/dungeond-tiles-progression.png" ]

mkdir "$work/elsewhere"
cd "$work/elsewhere" || exit 1
env -u DUNGEON_ROOMSETS "$prefix/bin/dungeon" generate --algorithm authored --seed 3 \
  --param roomset=crypt --param rooms=30 --format ascii --quiet >"$work/out" 2>"$work/err"
check "installed dungeon generates an authored level from another directory" [ $? -eq 0 ]
check "... and prints its map" [ -s "$work/out" ]
env -u DUNGEON_ROOMSETS "$prefix/bin/dungeon" generate --help >"$work/out" 2>"$work/err"
check "--help names the installed room-set directory" \
  grep -q "$prefix/share/dungeond/roomsets" "$work/out"
DUNGEON_ROOMSETS="$work/none" "$prefix/bin/dungeon" generate --algorithm authored --seed 3 \
  >"$work/out" 2>"$work/err"
check "\$DUNGEON_ROOMSETS still wins over the installed directory" [ $? -ne 0 ]
check "... naming the directory it tried" grep -q "$work/none" "$work/err"
mkdir -p "$work/own/config/roomsets"
cp "$source_dir/config/roomsets/sewer.json" "$work/own/config/roomsets/"
cd "$work/own" || exit 1
env -u DUNGEON_ROOMSETS "$prefix/bin/dungeon" generate --algorithm authored --seed 3 \
  --param roomset=crypt >"$work/out" 2>"$work/err"
check "./config/roomsets (a checkout) wins over the installed directory" [ $? -ne 0 ]
cd "$work/elsewhere" || exit 1
"$prefix/bin/dungeond" --check-config >"$work/out" 2>"$work/err"
check "installed dungeond's default config finds the installed room sets" \
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["roomsets_dir"] == sys.argv[2], d["roomsets_dir"]; assert len(d["roomsets"]) >= 3' \
  "$work/out" "$prefix/share/dungeond/roomsets"

echo "1..$n"
[ "$failed" -eq 0 ]
