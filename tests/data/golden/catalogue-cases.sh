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
# without the top-down grid: forced stairs outside every room are a stairs
# node joined to the room their way reaches (generator version 6)
for seed in $(seeds 1 10); do
  echo "--algorithm authored --seed $seed --param roomset=sewer --param rooms=30 --param grid=false --floors 3 --param locks=2"
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
# authored by storey (issue 25 item 1): every storey side by side, and one alone
for seed in $(seeds 1 5); do
  echo "--algorithm authored --seed $seed --param roomset=crypt --param rooms=60 --format svg --storey all --graph"
  echo "--algorithm authored --seed $seed --param roomset=sewer --param rooms=60 --format svg --storey 0"
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
# player profiles: parameters derived from a party by dungeond's own profile
# code (src/common/profile.c, here through --players/--profile), with the
# shipped "party" profile over parties of 1-8 players, and formulas whose
# value sits where a fused multiply-add rounds the other way: base
# -(1/2 + 2^-26 + 2^-27 + 2^-53) plus (1 + 2^-26) * (1 + 2^-27) is 1/2 - 2^-53
# with the product rounded (0 locks, 0 spawns) and 1/2 fused (1).
party='{"algorithm":"classic","params":{"width":{"base":60,"players":10,"min":60,"max":160},"height":{"base":18,"players":2,"min":18,"max":48},"rooms_min":{"base":4,"players":1.5,"min":4,"max":30},"rooms_max":{"base":7,"players":2,"min":7,"max":40},"closet_chance":{"base":0.3,"mean.level":-0.01,"min":0.05,"max":0.3},"secret_door_chance":{"base":0.05,"max.level":0.005,"min":0.05,"max":0.25}}}'
for seed in $(seeds 1 60); do
  players='' i=0
  while [ "$i" -le $((seed % 8)) ]; do
    players="$players${players:+,}{\"level\":$(((seed * 7 + i * 13) % 60 + 1))}"
    i=$((i + 1))
  done
  echo "--seed $seed --profile $party --players [$players]"
done
for param in locks spawns; do
  for seed in $(seeds 1 10); do
    echo "--seed $seed --profile {\"algorithm\":\"classic\",\"params\":{\"$param\":{\"base\":-0.5000000223517419,\"max.level\":1.0000000149011612}}} --players [{\"level\":1.0000000074505806}]"
  done
done
# population (issue 20): budgets over every pacing, with locks and a boss
# room (eased rooms, the peak), and on every floor of a set
for algorithm in classic landmark nonlinear; do
  for pacing in flat linear s_curve exponential; do
    for seed in $(seeds 1 10); do
      echo "--algorithm $algorithm --seed $seed --param population=true --param pacing=$pacing --param difficulty=$((seed * 9 + 7))"
    done
  done
  for seed in $(seeds 1 10); do
    echo "--algorithm $algorithm --seed $seed --param population=true --param locks=2 --param boss_room=true --param loot=997"
    echo "--algorithm $algorithm --seed $seed --param population=true --floors 3"
  done
done
for seed in $(seeds 1 10); do
  echo "--algorithm authored --seed $seed --param roomset=crypt --param rooms=40 --param population=true --param pacing=exponential --param locks=2 --param boss_room=true"
done
