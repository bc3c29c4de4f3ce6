#!/bin/sh
# The dungeon command as a user runs it: exit codes, messages, output.
# Usage: test_cli.sh PATH/TO/dungeon GOLDEN_DIR. Prints TAP.
set -u
dungeon=$1
golden=$2
n=0
failed=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err" "$out.2"' EXIT

check() { # description, then a shell condition
  n=$((n + 1))
  description=$1
  shift
  if "$@" >/dev/null; then  # a condition's own output (jq -e prints true) is not TAP
    echo "ok $n - $description"
  else
    echo "not ok $n - $description"
    echo "# stdout: $(head -c 400 "$out")"
    echo "# stderr: $(head -c 400 "$err")"
    failed=$((failed + 1))
  fi
}

run() { # runs dungeon with the arguments, stores its exit status in $status
  "$dungeon" "$@" >"$out" 2>"$err"
  status=$?
}

run --version
check "--version exits 0 and names the version" [ "$status" -eq 0 ]
check "--version prints 'dungeon X.Y.Z'" grep -Eq '^dungeon [0-9]+\.[0-9]+\.[0-9]+$' "$out"

run
check "no command is a usage error (2)" [ "$status" -eq 2 ]
check "no command prints usage" grep -q "usage: dungeon" "$err"

run frobnicate
check "unknown command exits 2" [ "$status" -eq 2 ]
check "unknown command is named" grep -q "unknown command 'frobnicate'" "$err"

run generate --seed 42 --quiet
check "generate exits 0" [ "$status" -eq 0 ]
check "generate prints dungeond.level/1 JSON" jq -e '.format == "dungeond.level/1" and .seed == 42 and .algorithm == "classic"' "$out"
check "generate --quiet keeps stderr empty" [ ! -s "$err" ]
cp "$out" "$out.2"
run generate --seed 42 --quiet
check "same seed gives identical bytes" cmp -s "$out" "$out.2"

run generate --seed 42 --format ascii --quiet
check "ascii map equals the golden map" cmp -s "$out" "$golden/classic-follow-42.txt"

run generate --seed 42 --format=ascii
check "timings go to stderr, not into the map" grep -q "generated in" "$err"

run generate --format ascii
check "no seed: one is chosen" [ "$status" -eq 0 ]
check "no seed: the chosen seed is printed" grep -Eq '^dungeon: seed [0-9]+$' "$err"

run generate --seed 1 --param width=5
check "out-of-range parameter exits 2" [ "$status" -eq 2 ]
check "out-of-range message gives the range" grep -q "width must be an integer from 20 to 1000" "$err"

run generate --seed 1 --param locks=17
check "locks out of range exits 2" [ "$status" -eq 2 ]
check "locks message gives the range" grep -q "locks must be an integer from 0 to 16" "$err"

run generate --seed 1 --param key_kind=skeleton
check "an unknown key kind exits 2" [ "$status" -eq 2 ]
check "key kind message lists the kinds" grep -q "key_kind must be one of reusable, consumable" "$err"

run generate --seed 1 --param locks=2 --param placement=false
check "locks without placement exits 2" [ "$status" -eq 2 ]

run generate --seed 1 --target locks_min=3 --target locks_max=1
check "locks_min above locks_max exits 2" [ "$status" -eq 2 ]

run generate --seed 42 --param locks=2 --format ascii
check "locks=2 draws locked doors and keys" grep -q "L" "$out"

run generate --seed 1 --param rooms_min=9 --param rooms_max=3
check "cross-field error exits 2" [ "$status" -eq 2 ]
check "cross-field error explained" grep -q "rooms_min must be at most params.rooms_max" "$err"

run generate --seed 1 --param nope=1
check "unknown parameter exits 2" [ "$status" -eq 2 ]
check "unknown parameter named" grep -q "unknown parameter 'nope'" "$err"

run generate --seed 1 --param width
check "--param without = exits 2" [ "$status" -eq 2 ]

run generate --seed -4
check "negative seed exits 2" [ "$status" -eq 2 ]
check "bad seed message gives the range" grep -q "0 to 18446744073709551615" "$err"

run generate --algorithm nethack
check "unknown algorithm exits 2" [ "$status" -eq 2 ]

run generate --format xml --seed 1
check "bad format exits 2" [ "$status" -eq 2 ]

run generate --seed
check "option without value exits 2" [ "$status" -eq 2 ]

run generate --seed 1 --format
check "--format without value exits 2" [ "$status" -eq 2 ]
check "--format without value says so" grep -q "needs a value" "$err"

run generate --seed 1 --param width=0x50
check "hex width is refused" [ "$status" -eq 2 ]

run generate --bogus
check "unknown option exits 2" [ "$status" -eq 2 ]

run generate --help
check "generate --help lists parameters" grep -q "corridor_style" "$out"

# Pictures and engine exports (docs/pictures.md).
run generate --seed 42 --format svg --quiet
check "--format svg exits 0" [ "$status" -eq 0 ]
check "--format svg is well-formed SVG of the map's size" python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
assert root.get("viewBox") == "0 0 80 21" and root.get("width") == "960", root.attrib
assert root.find("{http://www.w3.org/2000/svg}g[@class=\"tiles\"]") is not None
' "$out"
cp "$out" "$out.2"
run generate --seed 42 --format svg --quiet
check "svg: same seed gives identical bytes" cmp -s "$out" "$out.2"
run generate --seed 42 --format svg --quiet --graph --no-labels --tile-size 4
check "--graph --no-labels --tile-size 4 draw the graph, no labels, 4 px tiles" python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert root.get("width") == "320", root.get("width")
assert root.find(ns + "g[@class=\"graph\"]") is not None
assert root.find(ns + "g[@class=\"labels\"]") is None
' "$out"
roomsets="$golden/../../../config/roomsets"
run generate --algorithm authored --seed 1 --param roomset=crypt --param rooms=30 --roomsets "$roomsets" --format svg --storey all --quiet
check "--storey all: every storey side by side, captioned" sh -c '[ "$(grep -o "data-storey=" "$1" | wc -l)" -eq 4 ] && grep -q ">y = -8</text>" "$1"' sh "$out"
run generate --algorithm authored --seed 1 --param roomset=crypt --param rooms=30 --roomsets "$roomsets" --format svg --storey 4 --quiet
check "--storey 4: that storey alone" grep -q 'data-storey="4"' "$out"
run generate --algorithm authored --seed 1 --param roomset=crypt --param rooms=30 --roomsets "$roomsets" --format svg --storey 3 --quiet
check "--storey 3 (not a storey) exits 2" [ "$status" -eq 2 ]
check "--storey 3 names the storeys there are" grep -q "storey: storey 3 is not a storey of this level: it has storeys -8, 0, 4 and 8" "$err"
run generate --seed 42 --format svg --storey up --quiet
check "--storey up exits 2" [ "$status" -eq 2 ]
run generate --seed 42 --format tiled --storey 0 --quiet
check "--storey with tiled exits 2" [ "$status" -eq 2 ]
run generate --seed 42 --format svg --tile-size 65
check "--tile-size 65 exits 2" [ "$status" -eq 2 ]
check "--tile-size 65 names the range" grep -q "tile-size must be an integer from 1 to 64" "$err"
run generate --seed 42 --format png
check "--format png exits 2 naming the formats" grep -q "json, ascii, svg or tiled" "$err"
run generate --algorithm landmark --seed 3 --format tiled --quiet
check "--format tiled exits 0" [ "$status" -eq 0 ]
check "--format tiled parses as a Tiled map matching the level" python3 -c '
import json, subprocess, sys
tmj = json.load(open(sys.argv[1]))
level = json.loads(subprocess.run([sys.argv[2], "generate", "--algorithm", "landmark", "--seed", "3", "--quiet"], capture_output=True, check=True).stdout)
assert tmj["type"] == "map" and tmj["orientation"] == "orthogonal" and not tmj["infinite"]
w, h = tmj["width"], tmj["height"]
assert (w, h) == (level["grid"]["width"], level["grid"]["height"])
tiles, objects = tmj["layers"]
assert tiles["type"] == "tilelayer" and len(tiles["data"]) == w * h
ts = tmj["tilesets"][0]
names = {t["id"]: t["type"] for t in ts["tiles"]}
legend = level["grid"]["legend"]
for i, gid in enumerate(tiles["data"]):
    assert ts["firstgid"] <= gid < ts["firstgid"] + ts["tilecount"], gid
    assert names[gid - ts["firstgid"]] == legend[level["grid"]["rows"][i // w][i % w]], i
assert objects["type"] == "objectgroup"
rooms = [o for o in objects["objects"] if o["type"] == "room"]
assert len(rooms) == len(level["rooms"])
for o in objects["objects"]:
    assert 0 <= o["x"] and o["x"] + o["width"] <= w * tmj["tilewidth"]
    assert 0 <= o["y"] and o["y"] + o["height"] <= h * tmj["tileheight"]
points = sorted(o["type"] for o in objects["objects"] if o.get("point"))
assert points == sorted(o["kind"] for o in level["objects"] + level.get("features", [])), points
assert {"stairs_up", "stairs_down", "spawn"} <= set(points), points
assert tmj["nextobjectid"] == len(objects["objects"]) + 1
' "$out" "$dungeon"

run algorithms
check "algorithms lists classic" grep -q "^classic - " "$out"

run algorithms --json
check "algorithms --json is the registry" jq -e '.[0].name == "classic" and (.[0].params | length) > 5' "$out"

run bench --seconds 0.05 --json
check "bench --json exits 0" [ "$status" -eq 0 ]
check "bench --json reports a rate and level quality" jq -e '.levels_per_second_median > 0 and .runs == 5 and .quality.seeds > 0 and .quality.mean_rooms > 0' "$out"

run bench --seconds 0.05
check "bench prints a table" grep -q "levels/s med" "$out"
check "bench says which seeds its quality figures cover" grep -Eq "^quality over seeds 1-[0-9]+ \((all|stopped early: the time of the timed runs)\): rooms/level" "$out"
check "bench says what rooms/level counts" grep -q "^rooms/level: every room of the level" "$out"
# Issue 25 item 5: never a minute of silence. Not a terminal here, so one
# line per timed run and one as the quality seeds begin, on stderr only.
check "bench reports each timed run on stderr" sh -c 'for r in 1 2 3 4 5; do grep -q "^dungeon: timed run $r/5: [0-9]* levels" "$1" || exit 1; done' sh "$err"
check "bench reports the quality seeds on stderr" grep -q "^dungeon: quality seed 1/1000" "$err"
check "bench's progress stays off stdout" sh -c '! grep -q "^dungeon:" "$1"' sh "$out"
run bench --algorithm authored --roomsets "$golden/../../../config/roomsets" --param rooms=60 --seconds 0.05
check "authored bench says rooms/level counts the chain rooms" grep -q "the rooms of the cycle chains included" "$out"

# Issue 25 item 4: distributions over many seeds.
run audit --algorithm classic --seeds 20 --bins 4 --json
check "audit --json exits 0" [ "$status" -eq 0 ]
check "audit --json: 20 seeds, every figure's histogram holds them" jq -e '.format == "dungeond.audit/1" and .seeds.count == 20 and ([.figures[] | [.histogram[].count] | add] | all(. == 20)) and ([.figures[] | .min <= .p50 and .p50 <= .max] | all)' "$out"
run audit --algorithm classic --seeds 5-9
check "audit prints a table over the seeds asked" sh -c 'grep -q "^classic over seeds 5-9 (5 levels)" "$1" && grep -q "^rooms " "$1"' sh "$out"
check "audit reports progress on stderr, in twentieths" sh -c 'grep -q "^dungeon: audit 20/20: 5 of 5 seeds" "$1" && [ "$(wc -l < "$1")" -le 21 ]' sh "$err"
run audit --algorithm classic --seeds 0
check "audit --seeds 0 exits 2 naming the range" sh -c '[ "$2" -eq 2 ] && grep -q "seeds must be N (1 to 100000)" "$1"' sh "$err" "$status"
run audit --algorithm classic --seed 5
check "audit --seed exits 2 (it takes --seeds)" sh -c '[ "$2" -eq 2 ] && grep -q "takes --seeds" "$1"' sh "$err" "$status"
run audit --algorithm classic --bins 65
check "audit --bins 65 exits 2" [ "$status" -eq 2 ]

run bench --runs 2
check "bench --runs below 5 exits 2" [ "$status" -eq 2 ]

# Placement, floors and targets (issue 13).
run bench --seconds 0.05 --json
check "bench compares placement on and off in one run" jq -e '.placement_compare.levels_per_cpu_second_with_placement_median > 0 and .placement_compare.levels_per_cpu_second_without_placement_median > 0 and (.placement_compare.placement_cost_percent_median | type) == "number"' "$out"
run bench --seconds 0.05
check "bench table shows placement on and off" grep -q "off (placement=false)" "$out"
run bench --seconds 0.05 --json --no-compare
check "bench --no-compare skips the comparison" jq -e 'has("placement_compare") | not' "$out"

run generate --seed 42 --quiet --param spawns=3
check "generate places stairs and three spawns" jq -e '[.features[].kind] == ["stairs_up","stairs_down","spawn","spawn","spawn"] and .placement.spawns_placed == 3' "$out"
check "the stairs are on the map" jq -e '.features[0] as $u | .features[1] as $d | (.grid.rows[$u.y][$u.x:$u.x+1] == "<") and (.grid.rows[$d.y][$d.x:$d.x+1] == ">")' "$out"

run generate --seed 42 --quiet --param placement=false
check "placement=false: no features" jq -e '.features == [] and (has("placement") | not)' "$out"

run generate --seed 42 --quiet --param exit_distance=2
check "exit_distance out of range exits 2" [ "$status" -eq 2 ]
check "exit_distance message gives the range" grep -q "exit_distance must be a number from 0 to 1" "$err"

run generate --seed 42 --quiet --param stairs_up_x=3
check "stairs_up_x without stairs_up_y exits 2" [ "$status" -eq 2 ]

run generate --seed 9 --quiet --floors 3
check "--floors 3 prints a dungeond.levelset/1" jq -e '.format == "dungeond.levelset/1" and (.floors | length) == 3' "$out"
check "floors line up: down on floor k is up on floor k+1" jq -e '[range(0;2) as $k | .floors[$k].level.features[1] as $d | .floors[$k+1].level.features[0] as $u | ($d.x == $u.x and $d.y == $u.y)] | all' "$out"
check "each floor lists its request" jq -e '[.floors[] | .request.seed == .level.seed and .request.params == .level.params] | all' "$out"
cp "$out" "$out.2"
floor2_seed=$(jq -r '.floors[2].request.seed' "$out.2")
floor2_x=$(jq -r '.floors[2].request.params.stairs_up_x' "$out.2")
floor2_y=$(jq -r '.floors[2].request.params.stairs_up_y' "$out.2")
run generate --quiet --seed "$floor2_seed" --param stairs_up_x="$floor2_x" --param stairs_up_y="$floor2_y"
jq -c '.floors[2].level' "$out.2" >"$out.2.floor"
jq -c . "$out" >"$out.2.alone"
check "floor 2 regenerates alone from its request" cmp -s "$out.2.floor" "$out.2.alone"
rm -f "$out.2.floor" "$out.2.alone"

run generate --seed 9 --quiet --floors 2 --format ascii
check "--floors ascii: one map per floor" [ "$(grep -c '^floor [12] of 2' "$out")" -eq 2 ]

# Issue 25 item 2: a set as one picture and one Tiled map.
run generate --seed 9 --quiet --floors 3 --format svg
check "--floors svg exits 0" [ "$status" -eq 0 ]
check "--floors svg: one picture, a nested picture and a title per floor" sh -c 'python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" "$1" && [ "$(grep -o "<text class=\"floor-title\"" "$1" | wc -l)" -eq 3 ] && [ "$(grep -o "<svg " "$1" | wc -l)" -eq 4 ] && grep -q "data-floors=\"3\"" "$1"' sh "$out"
check "--floors svg: the stairs of floors 1-2 and 2-3 joined" sh -c 'grep -q "stair-link-1" "$1" && grep -q "stair-link-2" "$1"' sh "$out"
run generate --seed 9 --quiet --floors 3 --format tiled
check "--floors tiled: one group layer per floor" jq -e '[.layers[] | .type] == ["group","group","group"] and ([.layers[] | .layers | length] == [2,2,2]) and (.properties[] | select(.name == "format") | .value) == "dungeond.levelset/1"' "$out"

run generate --seed 9 --quiet --floors 65
check "--floors above 64 exits 2" [ "$status" -eq 2 ]
check "--floors message gives the range" grep -q "floors must be an integer from 1 to 64" "$err"

run generate --seed 9 --quiet --floors 2 --param placement=false
check "--floors without placement exits 2" [ "$status" -eq 2 ]

run generate --seed 5 --quiet --target path_min=1000000 --target attempts_max=3
check "an unreachable target is reported missed" jq -e '.targets.met == false and .targets.missed == ["path_min"] and .targets.attempts == 3 and (.targets.achieved.path | type) == "number"' "$out"

run generate --seed 5 --quiet --target cycles_max=1000 --target rooms_min=1
check "reachable targets are met at once" jq -e '.targets.met == true and .targets.attempts == 1 and .targets.chosen == 0' "$out"

run generate --seed 5 --quiet --target path_min=-3
check "a negative target exits 2" [ "$status" -eq 2 ]
check "the target's range is named" grep -q "targets.path_min must be an integer from 0 to 1000000" "$err"

run generate --seed 5 --quiet --target bogus=1
check "an unknown target exits 2" [ "$status" -eq 2 ]
check "known targets are listed" grep -q "unknown target 'bogus'" "$err"

run generate --help
check "generate --help shows the common parameters" grep -q "exit_distance" "$out"
check "generate --help explains --floors and --target" grep -q -- "--floors N" "$out"
check "generate --help lists the progression parameters" grep -q "one_way" "$out"
check "generate --help lists the population parameters" grep -q "ease_after_locks" "$out"

run generate --seed 5 --quiet --param population=true --param difficulty=101
check "a difficulty above 100 exits 2" [ "$status" -eq 2 ]
check "the difficulty's range is named" grep -q "difficulty must be an integer from 0 to 100" "$err"

run generate --seed 5 --quiet --param population=true --param pacing=steep
check "an unknown pacing exits 2" [ "$status" -eq 2 ]
check "the pacing's choices are named" grep -q "pacing must be one of flat, linear, s_curve, exponential" "$err"

run generate --seed 5 --quiet --param population=true --param placement=false
check "population without placement exits 2" [ "$status" -eq 2 ]
check "population without placement names the field" grep -q "params.population needs params.placement=true" "$err"

# Content tables (issue 20): --tables DIR with --param table=NAME.
tables="$golden/../../../config/tables"
run generate --seed 7 --quiet --tables "$tables" --param population=true --param table=fantasy
check "a table fills the level with entities" grep -q '"entities":\[{"id":"e1","kind":"' "$out"
check "the table is listed in params" grep -q '"table":"fantasy"' "$out"
run generate --seed 7 --quiet --tables "$tables" --param population=true --param table=fantasy --format ascii
check "ASCII draws encounters as e" grep -q 'e' "$out"
run generate --seed 7 --quiet --tables "$tables" --param population=true --param table=nope
check "an unknown table exits 2" [ "$status" -eq 2 ]
check "an unknown table names the field and the known ones" grep -q "params.table.*unknown table 'nope'; known: fantasy" "$err"
run generate --seed 7 --quiet --tables /nonexistent --param population=true --param table=fantasy
check "a missing table directory exits non-zero" [ "$status" -ne 0 ]
check "a missing table directory is named" grep -q "/nonexistent" "$err"
run generate --seed 7 --quiet --param population=true --param pacing=0:0,50:80,100:100
check "pacing control points are accepted" [ "$status" -eq 0 ]
check "control points come back as pairs" grep -q '"pacing":\[\[0,0\],\[50,80\],\[100,100\]\]' "$out"
run generate --seed 7 --quiet --param population=true --param pacing=0:0,50:80
check "control points not reaching 100 exit 2" [ "$status" -eq 2 ]
check "bad control points name the range" grep -q "2 to 16 control points" "$err"

# dungeon catalogue: the digest of exactly what generate prints.
cases=$(mktemp)
trap 'rm -f "$out" "$err" "$out.2" "$cases"' EXIT
printf '%s\n' '# a comment' '--algorithm classic --seed 42 --format ascii' \
  '--algorithm nonlinear --seed 3 --floors 2' >"$cases"
run catalogue "$cases"
check "catalogue exits 0" [ "$status" -eq 0 ]
check "catalogue copies comments" grep -qx '# a comment' "$out"
expected=$("$dungeon" generate --quiet --algorithm classic --seed 42 --format ascii | sha256sum | cut -c1-64)
check "catalogue's digest is sha256 of generate's output" grep -qx "$expected  --algorithm classic --seed 42 --format ascii" "$out"
expected=$("$dungeon" generate --quiet --algorithm nonlinear --seed 3 --floors 2 | sha256sum | cut -c1-64)
check "catalogue digests a set with its newline" grep -qx "$expected  --algorithm nonlinear --seed 3 --floors 2" "$out"
cp "$out" "$cases"
run catalogue --check "$cases"
check "catalogue --check passes its own output" [ "$status" -eq 0 ]
check "catalogue --check sums up" grep -qx "2 cases, 0 differ" "$out"
sed -i 's/^[0-9a-f]\{8\}/deadbeef/' "$cases"
run catalogue --check "$cases"
check "catalogue --check fails on a changed digest" [ "$status" -eq 1 ]
check "catalogue --check names the line" grep -q "line 2 differs" "$out"
printf '%s\n' '--algorithm classic' >"$cases"
run catalogue "$cases"
check "a case without --seed exits 2" [ "$status" -eq 2 ]
check "a case without --seed is named" grep -q "line 1: every case needs --seed" "$err"

# Parameters derived from the party by a profile, as dungeond derives them
# (src/common/profile.c): inline or from --config, explicit --param winning.
profile='{"algorithm":"classic","params":{"width":{"base":60,"players":10},"secret_door_chance":{"base":0.05,"max.level":0.005,"max":0.25}}}'
run generate --seed 3 --quiet --players '[{"level":12},{"level":7}]' --profile "$profile"
check "--players --profile exits 0" [ "$status" -eq 0 ]
check "--profile derives width 80 and secret_door_chance 0.11 for two players up to level 12" \
  jq -e '.params.width == 80 and .params.secret_door_chance == 0.11 and .params.spawns == 2' "$out"
run generate --seed 3 --quiet --players '[{"level":12},{"level":7}]' --profile "$profile" --param width=70
check "an explicit --param wins over the profile" jq -e '.params.width == 70' "$out"
cfg=$(mktemp)
printf '{"profiles":{"p":%s}}\n' "$profile" >"$cfg"
run generate --seed 3 --quiet --players '[{"level":12},{"level":7}]' --profile p --config "$cfg"
check "--profile NAME reads --config" jq -e '.params.width == 80' "$out"
run generate --seed 3 --quiet --players '[{"level":12},{"level":7}]' --profile nope --config "$cfg"
check "an unknown profile exits 2" [ "$status" -eq 2 ]
check "an unknown profile is named" grep -q "no profile 'nope'" "$err"
rm -f "$cfg"
run generate --seed 3 --quiet --players '[{"level":"high"}]'
check "a non-numeric attribute exits 2" [ "$status" -eq 2 ]
check "a non-numeric attribute is named" grep -q "players\[0\].level must be a number" "$err"
run generate --seed 3 --quiet --algorithm landmark --profile "$profile"
check "a profile for another algorithm exits 2" [ "$status" -eq 2 ]
check "a profile for another algorithm says so" grep -q "is for algorithm classic, not landmark" "$err"
run generate --seed 3 --quiet --players 3
check "--players N sets one spawn per player" jq -e '.params.spawns == 3' "$out"

# The client view (issue 20 item 4): no secrets, the full level's level_hash.
run generate --seed 7 --quiet --param locks=2 --param secret_door_chance=0.5
full_hash="sha256:$(tr -d '\n' <"$out" | sha256sum | cut -d' ' -f1)"
run generate --seed 7 --quiet --param locks=2 --param secret_door_chance=0.5 --view client
check "--view client exits 0" [ "$status" -eq 0 ]
check "--view client carries the full level's level_hash" \
  jq -e --arg h "$full_hash" '.view == "client" and .level_hash == $h' "$out"
check "--view client holds no seed, params, secret or key" \
  sh -c "! grep -Eq '\"seed\"|\"params\"|secret|\"key\"' '$out'"
run generate --seed 7 --quiet --param locks=2 --param secret_door_chance=0.5 --view full
check "--view full appends level_hash" jq -e --arg h "$full_hash" '.level_hash == $h and .seed == 7' "$out"
run generate --seed 7 --quiet --param locks=2 --param secret_door_chance=0.5 --view client --format ascii
check "--view client ascii has no secret door or key glyph" sh -c "! grep -q '[Sk=]' '$out'"
run generate --seed 7 --quiet --view everything
check "an unknown view exits 2" [ "$status" -eq 2 ]
check "an unknown view lists the views" grep -q "view must be one of full, client" "$err"

echo "1..$n"
[ "$failed" -eq 0 ]
