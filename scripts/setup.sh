#!/usr/bin/env bash
# Installs what the tests need on a Debian machine: Chromium and the sqlite3 tool from Debian
# (browsers are never downloaded by Playwright here), then the locked npm dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -x /usr/lib/chromium/chromium ] || [ -x /usr/bin/chromium ] || need+=(chromium)
command -v sqlite3 >/dev/null || need+=(sqlite3)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing ${need[*]} from Debian"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  elif command -v sudo >/dev/null; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "setup: please install ${need[*]} (Debian: apt-get install ${need[*]}), then run this again" >&2
    exit 1
  fi
fi

# better-sqlite3 compiles from source here; build against the installed Node's headers.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi
npm ci --no-audit --no-fund
