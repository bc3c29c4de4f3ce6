#!/bin/sh
# The TypeScript client's checks, as CI runs them (tests/meson.build):
# install the lock-pinned tools, fail when src/schema.ts is stale against
# docs/openapi.yaml, compile, and run node's test runner against the real
# daemon given as $1.
#   clients/typescript/run-tests.sh build/src/server/dungeond
set -eu
# examples/colyseus/run-tests.sh installs and builds this same tree: each
# holds the tree's lock (flock on this directory) for its whole run, so the
# two never overlap, and either may run beside any other test.
if [ -z "${DUNGEOND_CLIENT_TREE_LOCKED:-}" ]; then
  DUNGEOND_CLIENT_TREE_LOCKED=1 exec flock "$(dirname "$0")" sh "$0" "$@"
fi
daemon=$(realpath "$1")
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --prefer-offline >&2
npm run --silent check-generated >&2
npm run --silent build >&2
DUNGEOND="$daemon" node --test --test-reporter=tap dist/test/
