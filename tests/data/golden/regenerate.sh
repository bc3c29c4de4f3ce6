#!/bin/sh
# Rewrites the golden maps and the golden catalogue from the current
# build. Run it only when a change to what a seed makes is deliberate,
# and say why in the commit.
#   tests/data/golden/regenerate.sh build/src/cli/dungeon
set -eu
dungeon=${1:-build/src/cli/dungeon}
here=$(dirname "$0")
for style in follow cleanup plain; do
  for seed in 1 42 1000; do
    "$dungeon" generate --quiet --algorithm classic --seed "$seed" \
      --param corridor_style="$style" --format ascii >"$here/classic-$style-$seed.txt"
  done
done
# One whole level as JSON: the graph, metrics, stats and closets too.
"$dungeon" generate --quiet --algorithm classic --seed 42 --param closet_chance=1 \
  >"$here/classic-follow-42.json"
"$dungeon" generate --quiet --algorithm classic --seed 7 --param width=120 --param height=40 \
  --param rooms_min=15 --param rooms_max=20 --param closet_chance=1 --format ascii \
  >"$here/classic-large-7.txt"
# The authored generator (seed 003) with the shipped room sets: maps with
# chains and with the corridor baseline, and one whole level as JSON each.
for spec in crypt:chains:7 sewer:chains:3 crypt:corridors:5; do
  set=${spec%%:*} rest=${spec#*:}
  cycles=${rest%%:*} seed=${rest#*:}
  "$dungeon" generate --quiet --algorithm authored --roomsets "$here/../../../config/roomsets" \
    --seed "$seed" --param roomset="$set" --param rooms=60 --param cycles="$cycles" \
    --format ascii >"$here/authored-$set-$cycles-$seed.txt"
done
"$dungeon" generate --quiet --algorithm authored --roomsets "$here/../../../config/roomsets" \
  --seed 6 --param roomset=sewer --param rooms=40 >"$here/authored-sewer-chains-6.json"
"$dungeon" generate --quiet --algorithm authored --roomsets "$here/../../../config/roomsets" \
  --seed 5 --param roomset=crypt --param rooms=40 --param cycles=corridors \
  >"$here/authored-crypt-corridors-5.json"
# The landmark generator (seed 001), as tests/unit/test_landmark.c checks it.
for spec in default-1:1: cross-42:42:"--param mask=cross" \
  ring-7:7:"--param mask=ring --param landmark_style=cavern" \
  t-2026:2026:"--param mask=t --param landmark_style=rectangles --param landmarks_min=2" \
  l-5:5:"--param mask=l --param landmark_style=round"; do
  name=${spec%%:*} rest=${spec#*:}
  seed=${rest%%:*} params=${rest#*:}
  # shellcheck disable=SC2086 # the params are words on purpose
  "$dungeon" generate --quiet --algorithm landmark --seed "$seed" $params --format ascii \
    >"$here/landmark-$name.txt"
done
# The nonlinear generator (seed 002) has a script of its own.
"$here/regenerate-nonlinear.sh" "$dungeon"
# The golden catalogue: a SHA-256 of every case catalogue-cases.sh lists
# (thousands of outputs in one file), which the golden suite and CI check.
"$here/catalogue-cases.sh" |
  "$dungeon" catalogue --roomsets "$here/../../../config/roomsets" >"$here/catalogue.txt.new"
mv "$here/catalogue.txt.new" "$here/catalogue.txt"
