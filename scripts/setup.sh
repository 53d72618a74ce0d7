#!/usr/bin/env bash
# Installs what the tests need on a Debian machine: Chromium, the sqlite3 tool, Prometheus (with
# promtool), Alertmanager and PostgreSQL from Debian (browsers are never downloaded by Playwright
# here), then the locked npm dependencies. Only the binaries are wanted: the tests start their own
# Prometheus, Alertmanager and PostgreSQL (initdb into a temporary folder) on free loopback ports,
# so the services the packages start are stopped again.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -x /usr/lib/chromium/chromium ] || [ -x /usr/bin/chromium ] || need+=(chromium)
command -v sqlite3 >/dev/null || need+=(sqlite3)
{ command -v prometheus && command -v promtool; } >/dev/null || need+=(prometheus)
{ command -v prometheus-alertmanager && command -v amtool; } >/dev/null || need+=(prometheus-alertmanager)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
# The PostgreSQL TLS tests make the server's self-signed certificate with it.
command -v openssl >/dev/null || need+=(openssl)
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
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
  # Installed just now: the packages' own services (port 9090, 9093, 5432) are not the tests' and
  # not wanted.
  if [ -d /run/systemd/system ]; then
    for unit in prometheus prometheus-alertmanager postgresql; do
      if [[ " ${need[*]} " == *" $unit "* ]]; then "${sudo[@]}" systemctl disable --now "$unit" >/dev/null 2>&1 || true; fi
    done
  fi
  # Without systemd (containers, CI) the postgresql package may still have created and started its
  # default cluster through pg_ctlcluster: stop it and keep it from starting at boot.
  if [[ " ${need[*]} " == *" postgresql "* ]] && command -v pg_lsclusters >/dev/null; then
    pg_lsclusters -h 2>/dev/null | while read -r version name _; do
      "${sudo[@]}" pg_ctlcluster "$version" "$name" stop >/dev/null 2>&1 || true
      conf="/etc/postgresql/$version/$name/start.conf"
      if [ -f "$conf" ]; then echo manual | "${sudo[@]}" tee "$conf" >/dev/null; fi
    done
  fi
fi

# better-sqlite3 compiles from source here; build against the installed Node's headers.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi
npm ci --no-audit --no-fund
