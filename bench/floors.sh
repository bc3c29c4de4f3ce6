#!/bin/sh
# How close to the peers this design can come at all: classic and POST
# /v1/levels beside a floor build (bench/floors/*.patch: the generator's own
# steps only; a worker that only copies a finished level's bytes), libtcod's
# BSP and nginx, in one run.
#
#   bench/floors.sh [--build DIR] [--floor-build DIR] [--rounds R] [--seconds S]
#                   [--bench-seconds T] [--connections C] [--json]
#
# Installs the Debian packages it needs first, through deploy/install-deps.sh
# (libtcod-dev, wrk, nginx, meson; a no-op when they are there); then
# bench/floors.py builds the floor and prints the table, or with --json one
# JSON object; its --help says what each row means.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
case "${1:-}" in
  -h|--help) exec python3 "$here/floors.py" --help ;;
esac
# Install output goes to stderr so that --json's stdout stays one object.
"$root/deploy/install-deps.sh" >&2
exec python3 "$here/floors.py" "$@"
