#!/bin/sh
# Rewrites the nonlinear golden maps (tests/unit/test_nonlinear.c,
# nonlinear_golden::stored_maps) from the current build. Run it only when a
# change to what a seed makes is deliberate, and say why in the commit.
#   tests/data/golden/regenerate-nonlinear.sh build/src/cli/dungeon
set -eu
dungeon=${1:-build/src/cli/dungeon}
here=$(dirname "$0")
"$dungeon" generate --quiet --algorithm nonlinear --seed 1 --format ascii \
  >"$here/nonlinear-clock-1.txt"
"$dungeon" generate --quiet --algorithm nonlinear --seed 5 --param sublevel_chance=1 \
  --format ascii >"$here/nonlinear-clock-5-sublevels.txt"
"$dungeon" generate --quiet --algorithm nonlinear --seed 7 --param method=grid \
  --param threshold=3 --format ascii >"$here/nonlinear-grid-7.txt"
