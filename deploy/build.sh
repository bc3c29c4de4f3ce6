#!/bin/sh
# Configures (once) and builds dungeond into ./build, warnings as errors.
# Extra arguments go to the first `meson setup` (e.g. -Dbuildtype=release).
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build -Dwerror=true "$@"
else
  meson configure build -Dwerror=true
fi
meson compile -C build
