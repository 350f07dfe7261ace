#!/bin/sh
# Installs what trident needs to build and test on Debian 12 (or Ubuntu): the packages
# listed in cmake/debian-packages.txt, one a line ('#' starts a comment). Runs apt-get
# itself as root (a fresh container has no sudo), through sudo otherwise; asks nothing
# (DEBIAN_FRONTEND=noninteractive, -y).
#
#   cmake/install-debian.sh
set -eu
list=$(dirname "$0")/debian-packages.txt
packages=$(sed -e 's/#.*//' "$list" | tr -s ' \t\n' ' ')
[ -n "$packages" ] || { echo "install-debian.sh: no packages in $list" >&2; exit 2; }
if [ "$(id -u)" -eq 0 ]; then
  as_root=
elif command -v sudo >/dev/null 2>&1; then
  as_root=sudo
else
  echo "install-debian.sh: installing packages needs root; run it as root or install sudo" >&2
  exit 2
fi
# `env` passes the setting through sudo, which drops the caller's environment.
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update
# shellcheck disable=SC2086  # the package names are split on purpose
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y $packages
