#!/bin/sh
# Prints the golden catalogue's cases, one `dungeon generate` option list a
# line: every algorithm over a few hundred seeds with its main parameter
# sets, multi-floor sets, targets, SVG and Tiled. regenerate.sh digests them
# into catalogue.txt; the golden test and CI check that file.
set -eu
seeds() { seq "$1" "$2"; }
echo "# dungeond golden catalogue, written by regenerate.sh: SHA-256 of what"
echo "# 'dungeon generate --quiet OPTIONS' prints, then OPTIONS."
echo "# Check a build: dungeon catalogue --check --roomsets config/roomsets FILE"
# classic: the three corridor styles at the default size, larger maps
for style in follow cleanup plain; do
  for seed in $(seeds 1 200); do
    echo "--algorithm classic --seed $seed --param corridor_style=$style"
  done
done
for seed in $(seeds 1 60); do
  echo "--algorithm classic --seed $seed --param width=120 --param height=40 --param rooms_min=15 --param rooms_max=20 --param closet_chance=1 --format ascii"
done
for seed in $(seeds 1 20); do
  echo "--algorithm classic --seed $seed --param width=200 --param height=200 --param rooms_min=60 --param rooms_max=80"
done
for seed in $(seeds 1 30); do
  echo "--algorithm classic --seed $seed --param spawns=4 --param exit_distance=1"
done
# landmark: 200x200 (where fused multiply-adds once changed tunnels), each
# mask and landmark style at the default size
for seed in $(seeds 1 300); do
  echo "--algorithm landmark --seed $seed --param width=200 --param height=200"
done
for mask in box cross t l ring; do
  for seed in $(seeds 1 50); do
    echo "--algorithm landmark --seed $seed --param mask=$mask"
  done
done
for style in rectangles round cavern; do
  for seed in $(seeds 1 40); do
    echo "--algorithm landmark --seed $seed --param landmark_style=$style --param landmarks_min=2"
  done
done
# nonlinear: clock and grid methods, thresholds, sublevels
for method in clock grid; do
  for seed in $(seeds 1 200); do
    echo "--algorithm nonlinear --seed $seed --param method=$method"
  done
done
for threshold in 1 3 5; do
  for seed in $(seeds 1 30); do
    echo "--algorithm nonlinear --seed $seed --param threshold=$threshold --param sublevel_chance=0.5"
  done
done
# authored: every shipped room set, chains and the corridor baseline
for set in crypt sewer bench; do
  for seed in $(seeds 1 40); do
    echo "--algorithm authored --seed $seed --param roomset=$set --param rooms=60"
  done
  for seed in $(seeds 1 15); do
    echo "--algorithm authored --seed $seed --param roomset=$set --param rooms=60 --param cycles=corridors"
  done
  for seed in $(seeds 1 5); do
    echo "--algorithm authored --seed $seed --param roomset=$set --param rooms=60 --param cycles=none --format ascii"
  done
done
# multi-floor sets and targets
for seed in $(seeds 1 40); do
  echo "--algorithm classic --seed $seed --floors 3"
done
for algorithm in landmark nonlinear; do
  for seed in $(seeds 1 20); do
    echo "--algorithm $algorithm --seed $seed --floors 3"
  done
done
for seed in $(seeds 1 10); do
  echo "--algorithm authored --seed $seed --param roomset=crypt --param rooms=40 --floors 2"
done
for seed in $(seeds 1 30); do
  echo "--algorithm classic --seed $seed --target path_min=40 --target cycles_min=1"
done
# pictures and Tiled maps of every algorithm
for algorithm in classic landmark nonlinear; do
  for seed in $(seeds 1 30); do
    echo "--algorithm $algorithm --seed $seed --format svg"
    echo "--algorithm $algorithm --seed $seed --format tiled"
  done
  for seed in $(seeds 1 10); do
    echo "--algorithm $algorithm --seed $seed --format svg --graph --tile-size 8 --no-labels"
  done
done
for seed in $(seeds 1 15); do
  echo "--algorithm authored --seed $seed --param roomset=sewer --param rooms=60 --format svg --graph"
  echo "--algorithm authored --seed $seed --param roomset=crypt --param rooms=60 --format tiled"
done
# progression (issue 19): locks, both key kinds, one-way doors, boss rooms,
# as JSON and in every picture, so that a change to where a lock goes is
# deliberate too
for algorithm in classic landmark nonlinear; do
  for seed in $(seeds 1 25); do
    echo "--algorithm $algorithm --seed $seed --param locks=2 --param one_way=1"
    echo "--algorithm $algorithm --seed $seed --param locks=4 --param key_kind=consumable --param one_way=2 --param boss_room=true"
  done
  for seed in $(seeds 1 5); do
    echo "--algorithm $algorithm --seed $seed --param locks=2 --param one_way=1 --format ascii"
    echo "--algorithm $algorithm --seed $seed --param locks=2 --param one_way=1 --format svg"
    echo "--algorithm $algorithm --seed $seed --param locks=2 --param one_way=1 --format tiled"
  done
done
for seed in $(seeds 1 15); do
  echo "--algorithm authored --seed $seed --param roomset=crypt --param rooms=40 --param locks=2 --param one_way=1"
  echo "--algorithm authored --seed $seed --param roomset=crypt --param rooms=40 --param locks=4 --param key_kind=consumable --param grid=false"
done
