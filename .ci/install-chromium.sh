#!/usr/bin/env bash
# Headless Chromium for the /docs page test (tests/docs), from Debian's packages. Idempotent: does
# nothing when /usr/bin/chromium is already there; otherwise one apt-get update, then the install.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium: already installed ($(/usr/bin/chromium --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

export DEBIAN_FRONTEND=noninteractive
sudo_if_needed apt-get update
sudo_if_needed apt-get install -y chromium
/usr/bin/chromium --version
