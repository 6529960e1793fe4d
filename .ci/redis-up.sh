#!/usr/bin/env bash
# CI: makes a Redis server answer for the test/redis suites, so they run instead of skipping.
# With RECSVC_TEST_REDIS_URL set, only waits for that server. Otherwise makes
# 127.0.0.1:6379 answer: installs the distribution's redis-server when absent, starts it when
# it is installed and not running (the service when systemd runs it, else a daemonized
# redis-server bound to loopback), and waits for PONG.
set -euo pipefail

PORT="${RECSVC_CI_REDIS_PORT:-6379}"
WAIT_SECONDS=30

as_root=""
[ "$(id -u)" -eq 0 ] || as_root="sudo"
say() { echo "redis-up: $*"; }

pong() { [ "$(redis-cli "$@" ping 2>/dev/null)" = "PONG" ]; }

wait_for_pong() { # wait_for_pong <redis-cli arguments...>
  for _ in $(seq 1 "$WAIT_SECONDS"); do
    if pong "$@"; then return 0; fi
    sleep 1
  done
  say "gave up after ${WAIT_SECONDS}s waiting for PONG (redis-cli $*)" >&2
  exit 1
}

# 1. Installed? (redis-cli comes with redis-server, and is what checks it.)
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || { say "Redis is not installed and there is no apt-get: install it, or set RECSVC_TEST_REDIS_URL" >&2; exit 1; }
  say "installing Redis (apt-get install redis-server)"
  $as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends redis-server redis-tools >/dev/null
fi

if [ -n "${RECSVC_TEST_REDIS_URL:-}" ]; then
  wait_for_pong -u "$RECSVC_TEST_REDIS_URL"
  say "RECSVC_TEST_REDIS_URL answers"
  exit 0
fi

# 2. Running? Start it when not.
if ! pong -h 127.0.0.1 -p "$PORT"; then
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1 && [ "$PORT" = 6379 ]; then
    say "starting the redis-server service"
    $as_root systemctl start redis-server || true
  fi
  if ! pong -h 127.0.0.1 -p "$PORT"; then
    say "starting redis-server on 127.0.0.1:${PORT}"
    redis-server --bind 127.0.0.1 --port "$PORT" --daemonize yes --save '' --appendonly no >/dev/null
  fi
fi

wait_for_pong -h 127.0.0.1 -p "$PORT"
say "Redis answers on 127.0.0.1:${PORT}"
