#!/usr/bin/env bash
# Install what gpuplan needs to build and test, from Debian packages, if it is missing.
# Runs apt-get as root (or through sudo). Safe to run again: it installs nothing present.
set -euo pipefail
pkgs=(cmake make gcc clang clang-format pkg-config libjansson-dev libcmocka-dev jq libmicrohttpd-dev curl)
[ "${GP_WITH_FUZZ:-0}" = 1 ] && pkgs+=(libclang-rt-dev)
# the browser test (tests/browser): the system Chromium, driven by playwright-core from npm
if [ "${GP_WITH_BROWSER:-0}" = 1 ]; then
  pkgs+=(chromium)
  command -v node >/dev/null || pkgs+=(nodejs)
  command -v npm >/dev/null || pkgs+=(npm)
fi
[ "${GP_WITH_BENCH:-0}" = 1 ] && pkgs+=(wrk)  # bench/web_load.sh
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all build dependencies present (${pkgs[*]})"
  exit 0
fi
echo "deps: installing ${missing[*]} (Debian packages)"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
