#!/bin/sh
# dungeond beside its peers in one run: libtcod BSP, rot.js Uniform/Digger,
# node + rot.js over HTTP, nginx serving a static file; our rate, theirs
# and the ratio ours/peer per row.
#
#   bench/peers.sh [--build DIR] [--rounds R] [--seconds S] [--bench-seconds T]
#                  [--connections C] [--json]
#
# Installs what it needs first: the Debian packages through
# deploy/install-deps.sh (libtcod-dev, wrk, nginx, node; a no-op when they
# are there) and the npm peers of bench/peers from its package-lock.json
# with `npm ci` (again only when the lock file changed since the last
# install). Then bench/peers.py measures and prints the table, or with
# --json one JSON object; its --help lists the rows and the options.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
case "${1:-}" in
  -h|--help) exec python3 "$here/peers.py" --help ;;
esac
# Install output goes to stderr so that --json's stdout stays one object.
"$root/deploy/install-deps.sh" >&2
stamp="$here/peers/node_modules/.installed-from-lock"
lock_sum="$(sha256sum "$here/peers/package-lock.json" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  (cd "$here/peers" && npm ci --no-audit --no-fund --loglevel=error) >&2
  echo "$lock_sum" > "$stamp"
fi
exec python3 "$here/peers.py" "$@"
