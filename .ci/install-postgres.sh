#!/usr/bin/env bash
# PostgreSQL 15 server binaries for the PostgreSQL suites (tests/support/postgres.ts), from Debian's
# packages. Idempotent and quick: does nothing but check when the binaries and the unprivileged
# user the tests run the server as are there; otherwise one apt-get update, then the install.
# No cluster or service of the package's own is made: each test run makes and removes its own.
set -euo pipefail

bin=/usr/lib/postgresql/15/bin
user=postgres

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

installed() {
  [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] && [ -x "$bin/postgres" ]
}

if installed; then
  echo "postgresql-15: already installed ($("$bin/postgres" --version))"
else
  export DEBIAN_FRONTEND=noninteractive
  sudo_if_needed apt-get update
  # postgresql-common first, told not to create and start a "main" cluster when the server comes.
  sudo_if_needed apt-get install -y --no-install-recommends postgresql-common
  conf=/etc/postgresql-common/createcluster.conf
  if grep -Eq '^#?[[:space:]]*create_main_cluster' "$conf"; then
    sudo_if_needed sed -i -E 's/^#?[[:space:]]*create_main_cluster.*/create_main_cluster = false/' "$conf"
  else
    echo 'create_main_cluster = false' | sudo_if_needed tee -a "$conf" >/dev/null
  fi
  sudo_if_needed apt-get install -y --no-install-recommends postgresql-15
  installed || { echo "postgresql-15: installed, but $bin lacks initdb, pg_ctl or postgres" >&2; exit 1; }
  echo "postgresql-15: installed ($("$bin/postgres" --version))"
fi

# The server refuses to run as root: the tests run it as this user, which the package creates.
if ! id -u "$user" >/dev/null 2>&1; then
  sudo_if_needed useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$user"
  echo "postgresql-15: created the user $user"
fi
