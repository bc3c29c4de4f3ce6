#!/bin/sh
# usage: cmp.sh BUILD_DIR runs
B=$1; R=${2:-5}
cc -O2 -std=c17 -I /work/wt-delaunay/include /tmp/dl/dl.c $B/src/lib/libdungeon.a -ljansson -lm -o /tmp/dl/dl_$(basename $B) || exit 1
/tmp/dl/dl_$(basename $B) 3 /tmp/dl/points.txt >/dev/null
for i in $(seq $R); do
  o=$(/tmp/dl/dl_$(basename $B)); n=$(node /work/wt-delaunay/bench/landmark/delaunator.mjs /tmp/dl/points.txt)
  python3 -c "import json,sys;o=json.loads('$o');n=json.loads('$n');print(f\"ours {o['ms']:.3f} delaunator {n['delaunator_ms']:.3f} ratio {n['delaunator_ms']/o['ms']:.2f} tri {o['tri']} hash {o['hash']}\")"
done
