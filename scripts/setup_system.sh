#!/usr/bin/env bash
# System parts the Python install cannot bring: Debian chromium (for the reference
# renderer) and the pinned p5 + p5.brush from npm. Idempotent; run by `make setup`.
set -euo pipefail
cd "$(dirname "$0")/.."
# a dropped connection to a mirror is retried, not a failed setup (pip retries on its own)
APT="-o Acquire::Retries=3"
if [ -f package-lock.json ]; then
  if ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      apt-get $APT update -qq && DEBIAN_FRONTEND=noninteractive apt-get $APT install -y -qq npm >/dev/null
    else  # "npm: command not found" (exit 127) said neither what it was for nor how to get it
      echo "npm is missing: install it (sudo apt-get install npm) for the pinned p5 and p5.brush, then make setup" >&2
      exit 1
    fi
  fi
  if [ ! -d node_modules/p5.brush ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error --fetch-retries=4
  fi
fi
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get $APT update -qq && DEBIAN_FRONTEND=noninteractive apt-get $APT install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: install Debian's chromium (sudo apt-get install chromium)" >&2
  fi
fi
