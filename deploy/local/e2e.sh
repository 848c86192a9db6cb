#!/usr/bin/env bash
# Runs the Playwright end-to-end tests against a fresh local stack, as `make test` does:
#   1. installs Debian's chromium when /usr/bin/chromium is missing;
#   2. starts bin/devstack on the normal ports (console 8080, services 8081…) with a new, empty data
#      folder under .data/ (its own Postgres, Redis and embedded NATS, so no earlier data leaks in);
#   3. waits for its ready file, runs `npm run e2e` (or the command given as arguments, e.g. the
#      console benchmark: deploy/local/e2e.sh node bench/console/bench.mjs) with
#      PAYGATE_E2E_URL=http://localhost:8080;
#   4. always stops the stack and removes the data folder; the stack's log stays in
#      .data/e2e-devstack.log, and its end is printed when something failed, followed by the end of
#      the test run's own output (.data/e2e-output.log), so the failing test is the last thing a
#      CI log shows.
# Needs bin/devstack and the service binaries (make build-go) and the console build (npm run build).
#
# Environment: PAYGATE_SERVICES (space- or comma-separated, default: every built service),
# PAYGATE_E2E_READY_TIMEOUT (seconds, default 180).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
READY_TIMEOUT="${PAYGATE_E2E_READY_TIMEOUT:-180}"
LOG="$ROOT/.data/e2e-devstack.log"
OUT="$ROOT/.data/e2e-output.log"

log() { printf 'e2e: %s\n' "$*"; }
die() { printf 'e2e: error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else die "need root to run: $*"
  fi
}

if [[ ! -x /usr/bin/chromium ]]; then
  log "installing Debian's chromium (once per machine)"
  as_root apt-get update -qq >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  [[ -x /usr/bin/chromium ]] || die "chromium did not install to /usr/bin/chromium"
fi
log "$(/usr/bin/chromium --version 2>/dev/null || echo 'chromium (version unknown)')"

[[ -x bin/devstack ]] || die "bin/devstack is missing: run make build-go"
[[ -f shell/dist/index.html ]] || die "shell/dist is missing: run npm run build"

# The stack's Postgres runs as the postgres OS user, which must reach the data folder: every folder
# above it must be searchable by others. A checkout under a private folder (a mktemp -d clone, a
# home directory with mode 700) gets its e2e data under /tmp instead.
searchable_by_others() {
  local d="$1" mode
  while [[ "$d" != "/" ]]; do
    mode="$(stat -c %a "$d")"
    (( (8#$mode & 1) != 0 )) || return 1
    d="$(dirname "$d")"
  done
}

mkdir -p .data
chmod 755 .data
if searchable_by_others "$ROOT/.data"; then
  DATA="$(mktemp -d "$ROOT/.data/e2e.XXXXXX")"
else
  DATA="$(mktemp -d /tmp/paygate-e2e.XXXXXX)"
  log "$ROOT is not searchable by the postgres user: e2e data goes to $DATA"
fi
chmod 755 "$DATA"
READY="$DATA/ready"
services=()
[[ -n "${PAYGATE_SERVICES:-}" ]] && services=(-services "$PAYGATE_SERVICES")

log "starting the stack (data $DATA, log $LOG)"
env -u PAYGATE_DATABASE_URL -u PAYGATE_REDIS_URL -u PAYGATE_NATS_URL \
  bin/devstack -root "$ROOT" -data-dir "$DATA" -ready-file "$READY" "${services[@]}" >"$LOG" 2>&1 &
PID=$!

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if kill -0 "$PID" 2>/dev/null; then
    log "stopping the stack"
    kill -TERM "$PID" 2>/dev/null || true
    for ((i = 0; i < 60; i++)); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$PID" 2>/dev/null && { log "the stack did not stop in 30s: killing it"; kill -KILL "$PID" 2>/dev/null || true; }
  fi
  wait "$PID" 2>/dev/null || true
  if [[ $status -ne 0 ]]; then
    printf '\ne2e: the last 150 lines of %s:\n' "$LOG" >&2
    tail -n 150 "$LOG" >&2 || true
    if [[ -s "$OUT" ]]; then
      printf '\ne2e: the last 200 lines of the test run (%s):\n' "$OUT" >&2
      tail -n 200 "$OUT" >&2 || true
    fi
  fi
  rm -rf "$DATA"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for ((i = 0; i < READY_TIMEOUT * 2; i++)); do
  [[ -f "$READY" ]] && break
  kill -0 "$PID" 2>/dev/null || die "the stack exited before it was ready"
  sleep 0.5
done
[[ -f "$READY" ]] || die "the stack was not ready within ${READY_TIMEOUT}s"
cmd=("$@")
(( ${#cmd[@]} )) || cmd=(npm run e2e)
log "the stack is ready after $((i / 2))s; running ${cmd[*]}"

: >"$OUT"
PAYGATE_E2E_URL=http://localhost:8080 "${cmd[@]}" 2>&1 | tee "$OUT"
