#!/bin/sh
# Installs every build, test and benchmark dependency of dungeond on Debian 12
# with apt-get. systemd (for systemd-analyze), strace and python3-yaml are
# for the checks of the deployment bundle (tests/deploy/); prometheus brings
# promtool, which checks and unit-tests deploy/monitoring/'s rules; tiled
# brings tmxrasterizer, which renders maps fetched from the daemon; locales
# brings localedef, with which a test reads numbers under de_DE. Used by the
# README's commands and by .ci/run. Idempotent.
set -eu
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
PACKAGES="
  build-essential pkg-config meson ninja-build clang clang-format
  libjansson-dev libuv1-dev libmicrohttpd-dev libcriterion-dev zlib1g-dev
  curl jq wrk nginx prometheus hyperfine valgrind chromium
  libtcod-dev
  systemd strace python3-yaml
  tiled
  locales
"
missing=""
for package in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $package"
done
if [ -n "$missing" ]; then
  $SUDO apt-get update -q
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi
# Node.js runs the OpenAPI linter and the benchmark peers; the machine image
# ships it, a bare Debian 12 gets Debian's.
if ! command -v node >/dev/null 2>&1; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q nodejs npm
fi
