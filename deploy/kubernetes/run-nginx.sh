#!/bin/sh
# Runs nginx in front of the dungeond StatefulSet (deploy/kubernetes). Stock
# nginx (Debian 12's 1.22, and any open-source nginx before 1.27.3) resolves
# an upstream server's name only when it loads its configuration: a dungeond
# pod rescheduled with a new address would never be reached again. So this
# starts nginx once every replica's name resolves, then re-resolves the names
# every RESOLVE_INTERVAL_S seconds and reloads nginx (SIGHUP: no connection
# is dropped) when an address or the configuration changed.
# SIGTERM stops nginx gracefully (SIGQUIT: requests in flight finish).
set -u
conf=${NGINX_CONF:-/etc/nginx/dungeond/nginx.conf}
site=${NGINX_SITE:-/etc/nginx/dungeond/dungeond.conf}
interval=${RESOLVE_INTERVAL_S:-5}
getent=${GETENT:-getent}  # tests substitute a resolver whose answers they change

# "name=addresses" for every upstream server, then the files' checksums;
# fails while a name does not resolve.
state() {
  for name in $(sed -n 's/^[[:space:]]*server[[:space:]][[:space:]]*\([^:;{[:space:]]*\):[0-9].*/\1/p' "$site"); do
    addresses=$($getent hosts "$name" | awk '{print $1}' | sort | tr '\n' ' ')
    [ -n "$addresses" ] || return 1
    printf '%s=%s\n' "$name" "$addresses"
  done
  cksum "$conf" "$site"
}

until current=$(state); do
  echo "run-nginx: waiting for every dungeond replica's name to resolve" >&2
  sleep 2
done
nginx -e stderr -c "$conf" -g 'daemon off;' &
pid=$!
trap 'kill -QUIT "$pid"; wait "$pid"; exit 0' TERM
trap 'kill -TERM "$pid"; wait "$pid"; exit 0' INT
while kill -0 "$pid" 2>/dev/null; do
  sleep "$interval" &
  wait $!
  if next=$(state) && [ "$next" != "$current" ]; then
    # A configuration nginx would refuse leaves the running one in place.
    if nginx -e stderr -c "$conf" -t -q; then
      echo "run-nginx: replica addresses or configuration changed: reloading" >&2
      kill -HUP "$pid"
      current=$next
    fi
  fi
done
wait "$pid"
