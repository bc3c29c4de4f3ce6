#!/bin/sh
# The Colyseus example's test, as CI runs it (tests/http/meson.build): the
# TypeScript client built from its lock file, this example's packages from
# its own, then node's test runner with the real daemon given as $1.
#   examples/colyseus/run-tests.sh build/src/server/dungeond
set -eu
# clients/typescript/run-tests.sh installs and builds the client tree too:
# hold its lock (flock on that directory) for the whole run, so the two
# never overlap, and either may run beside any other test.
if [ -z "${DUNGEOND_CLIENT_TREE_LOCKED:-}" ]; then
  DUNGEOND_CLIENT_TREE_LOCKED=1 exec flock "$(dirname "$0")/../../clients/typescript" sh "$0" "$@"
fi
daemon=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../clients/typescript"
npm ci --no-audit --no-fund --prefer-offline >&2
npm run --silent build >&2
cd "$here"
npm ci --no-audit --no-fund --prefer-offline >&2
DUNGEOND="$daemon" node --test --test-reporter=tap test/
