#!/usr/bin/env bash
# CI: makes a PostgreSQL server answer for the test/postgres suites, so they run instead of
# skipping. With RECSVC_TEST_DATABASE_URL set, only waits for that server. Otherwise makes
# postgres://postgres@127.0.0.1:5432/test work: installs the distribution's PostgreSQL when
# absent, starts its cluster when stopped, lets the postgres user in over loopback without a
# password when it cannot get in yet (a CI machine's throwaway server; never on a shared
# one), creates the `test` database when missing, and waits until it answers.
set -euo pipefail

PORT="${PGPORT:-5432}"
DATABASE="${RECSVC_CI_PG_DATABASE:-test}"
WAIT_SECONDS=60

as_root=""
[ "$(id -u)" -eq 0 ] || as_root="sudo"
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi
}
say() { echo "postgres-up: $*"; }

wait_until() { # wait_until <description> <command...>
  local description="$1"
  shift
  for _ in $(seq 1 "$WAIT_SECONDS"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  say "gave up after ${WAIT_SECONDS}s waiting for ${description}" >&2
  exit 1
}

if [ -n "${RECSVC_TEST_DATABASE_URL:-}" ]; then
  command -v psql >/dev/null 2>&1 || { say "psql is needed to check RECSVC_TEST_DATABASE_URL" >&2; exit 1; }
  wait_until "RECSVC_TEST_DATABASE_URL to answer" psql "$RECSVC_TEST_DATABASE_URL" -w -Atc 'SELECT 1'
  say "RECSVC_TEST_DATABASE_URL answers"
  exit 0
fi

tcp_psql() { psql -h 127.0.0.1 -p "$PORT" -U postgres -w "$@"; }

# 1. Installed?
if ! command -v pg_lsclusters >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || { say "PostgreSQL is not installed and there is no apt-get: install it, or set RECSVC_TEST_DATABASE_URL" >&2; exit 1; }
  say "installing PostgreSQL (apt-get install postgresql)"
  $as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi

# 2. Running? Start every stopped cluster (creating one if the package left none).
if ! pg_isready -q -h 127.0.0.1 -p "$PORT"; then
  if [ -z "$(pg_lsclusters -h 2>/dev/null)" ]; then
    version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
    say "creating cluster ${version}/main"
    $as_root pg_createcluster "$version" main --port "$PORT" >/dev/null
  fi
  pg_lsclusters -h | while read -r version cluster _port status _rest; do
    if [ "$status" != "online" ]; then
      say "starting cluster ${version}/${cluster}"
      $as_root pg_ctlcluster "$version" "$cluster" start || $as_root service postgresql start
    fi
  done
  wait_until "PostgreSQL on 127.0.0.1:${PORT}" pg_isready -q -h 127.0.0.1 -p "$PORT"
fi

# 3. The postgres user over loopback without a password (the suites' default URL).
if ! tcp_psql -d postgres -Atc 'SELECT 1' >/dev/null 2>&1; then
  hba="$(as_postgres psql -p "$PORT" -Atc 'SHOW hba_file')"
  say "letting postgres in over loopback without a password (${hba})"
  $as_root sed -i '1i host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust' "$hba"
  as_postgres psql -p "$PORT" -qAtc 'SELECT pg_reload_conf()' >/dev/null
  wait_until "the postgres user to get in over loopback" tcp_psql -d postgres -Atc 'SELECT 1'
fi

# 4. The test database.
if [ "$(tcp_psql -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'")" != "1" ]; then
  say "creating database ${DATABASE}"
  tcp_psql -d postgres -qc "CREATE DATABASE \"${DATABASE}\""
fi
wait_until "database ${DATABASE} to answer" tcp_psql -d "$DATABASE" -Atc 'SELECT 1'
say "postgres://postgres@127.0.0.1:${PORT}/${DATABASE} answers"
