#!/usr/bin/env bash
# The N-1 compatibility test (`make compat`, a step of `make test`; the rule it proves is in
# docs/releases.md). For each service S of auth, gateway, callbacks and aggregator:
#
#   1. S runs as built from this checkout, the three others as built from the previous release (the
#      base below), the sandbox (the demo providers and merchant, a test fixture) from this checkout;
#   2. bin/devstack of this checkout starts them as `make run` does, on the normal ports (console
#      8080, services 8081…), with a fresh data folder: its own Postgres cluster, Redis and
#      embedded NATS JetStream, so no stream, consumer or row of another run leaks in;
#   3. the smoke flow: the demo admin signs in at auth; through the gateway it reads the demo
#      merchant, provider and collab, adds the sandbox's demo merchant as the collab's callback URL
#      (the callbacks service), lists its own sessions (forwarded to auth), initializes a deposit and
#      reads it back; the demo merchant must receive the transaction's callback with a valid
#      signature (gateway → NATS → callbacks), and the statistics (forwarded to the aggregator, fed
#      from NATS) must count it;
#   4. the stack stops and its data folder goes, whatever happened.
#
# The base is PAYGATE_COMPAT_BASE when set (any commit, tag or rev), else the newest release tag v*
# that is an ancestor of HEAD (a tag on HEAD itself is skipped: that is this release), else, until
# the first release is tagged, HEAD~PAYGATE_COMPAT_DEPTH (default 40, along the first parent: a
# commit from before the revocation check that made a new gateway refuse an older auth's tokens).
# A base that is not in this clone (a shallow clone) fails with a sentence saying so; it is never
# skipped.
#
# The base's binaries are built once (go build, from a `git worktree add` of the base in a
# temporary folder, sharing the module and build caches) into .data/compat/<commit>/ and reused by
# the four runs and by later runs of the same base. The ports must be free: on a shared machine run
# it under the e2e lock (flock /tmp/paygate-e2e.lock deploy/local/compat.sh).
#
# Environment: PAYGATE_COMPAT_BASE, PAYGATE_COMPAT_DEPTH (default 40), PAYGATE_COMPAT_NEW_BIN (a
# folder with this checkout's binaries already built, as `make compat` passes bin/; by default they
# are built into a temporary folder), PAYGATE_COMPAT_SERVICES
# (default "auth gateway callbacks aggregator"), PAYGATE_COMPAT_WAIT_SECONDS (per wait, default 60),
# PAYGATE_COMPAT_READY_TIMEOUT (seconds for the stack to start, default 180).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
DEPTH="${PAYGATE_COMPAT_DEPTH:-40}"
ALL=(auth gateway callbacks aggregator)
read -r -a UNDER_TEST <<<"${PAYGATE_COMPAT_SERVICES:-${ALL[*]}}"
WAIT="${PAYGATE_COMPAT_WAIT_SECONDS:-60}"
READY_TIMEOUT="${PAYGATE_COMPAT_READY_TIMEOUT:-180}"
AUTH=http://127.0.0.1:8081
GW=http://127.0.0.1:8082
SANDBOX=http://127.0.0.1:8085
START=$SECONDS

RUN="" # the run under way, for messages: "gateway new, the rest at <base>"
log() { printf 'compat: %s\n' "$*"; }
die() { printf 'compat: FAILED%s: %s\n' "${RUN:+ ($RUN)}" "$*" >&2; exit 1; }

WORK="$(mktemp -d /tmp/paygate-compat.XXXXXX)"
chmod 755 "$WORK" # the stack's Postgres runs as the postgres OS user and must reach its data
NEW="" # this checkout's binaries
STACK_PID=""
STACK_LOG=""
BASE_TREE=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  stop_stack
  if ((rc != 0)) && [[ -n "$STACK_LOG" && -s "$STACK_LOG" ]]; then
    printf '\ncompat: the last 80 lines of the stack'\''s log (%s):\n' "$RUN" >&2
    tail -n 80 "$STACK_LOG" >&2
  fi
  if [[ -n "$BASE_TREE" ]]; then
    git worktree remove --force "$BASE_TREE" >/dev/null 2>&1 || rm -rf "$BASE_TREE"
    git worktree prune >/dev/null 2>&1
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------ the base

# base_rev prints the rev to build the others from, and says why on stderr.
base_rev() {
  if [[ -n "${PAYGATE_COMPAT_BASE:-}" ]]; then
    log "base: PAYGATE_COMPAT_BASE=$PAYGATE_COMPAT_BASE" >&2
    printf '%s\n' "$PAYGATE_COMPAT_BASE"
    return
  fi
  local excludes=() t tag
  while read -r t; do [[ -n "$t" ]] && excludes+=(--exclude "$t"); done < <(git tag --points-at HEAD -l 'v*')
  if tag="$(git describe --tags --abbrev=0 --match 'v*' "${excludes[@]}" HEAD 2>/dev/null)"; then
    log "base: $tag, the newest release tag before HEAD" >&2
    printf '%s\n' "$tag"
    return
  fi
  log "base: HEAD~$DEPTH (no release tag v* before HEAD yet; PAYGATE_COMPAT_DEPTH=$DEPTH)" >&2
  printf 'HEAD~%s\n' "$DEPTH"
}

resolve_base() {
  local rev="$1" sha
  if ! sha="$(git rev-parse -q --verify "$rev^{commit}")"; then
    if [[ "$(git rev-parse --is-shallow-repository)" == true ]]; then
      die "the base $rev is not in this clone, which is shallow ($(git rev-list --count HEAD) commits): fetch the history (git fetch --unshallow --tags) or set PAYGATE_COMPAT_BASE to a commit the clone has"
    fi
    die "the base $rev is not a commit of this repository: set PAYGATE_COMPAT_BASE to a commit, tag or rev"
  fi
  [[ "$sha" != "$(git rev-parse HEAD)" ]] || die "the base $rev is HEAD itself: there is no previous release to test against"
  printf '%s\n' "$sha"
}

# build_base SHA DIR: the base's service binaries in DIR, built once per commit and Go version.
build_base() {
  local sha="$1" dir="$2" stamp s
  stamp="$sha $(go env GOVERSION)"
  if [[ -f "$dir/.stamp" && "$(cat "$dir/.stamp")" == "$stamp" ]]; then
    log "the base's binaries are already built ($dir)"
    return
  fi
  BASE_TREE="$WORK/base-src"
  git worktree add --detach "$BASE_TREE" "$sha" >/dev/null 2>&1 ||
    die "git worktree add of the base $sha failed"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  local pkgs=()
  for s in "${ALL[@]}"; do pkgs+=("./services/$s"); done
  log "building the base's ${ALL[*]} (go build in a worktree of $sha)"
  local t0=$SECONDS
  (cd "$BASE_TREE" && go build -o "$dir.tmp/" "${pkgs[@]}") || die "go build of the base $sha failed"
  log "the base's binaries built in $((SECONDS - t0))s"
  printf '%s\n' "$stamp" >"$dir.tmp/.stamp"
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  # Only the newest base is kept.
  find "$(dirname "$dir")" -mindepth 1 -maxdepth 1 -type d ! -path "$dir" -exec rm -rf {} +
  git worktree remove --force "$BASE_TREE" >/dev/null 2>&1 || true
  BASE_TREE=""
}

# ------------------------------------------------------------ the stack

stop_stack() {
  [[ -n "$STACK_PID" ]] || return 0
  if kill -0 "$STACK_PID" 2>/dev/null; then
    kill -TERM "$STACK_PID" 2>/dev/null
    local i
    for ((i = 0; i < 60; i++)); do kill -0 "$STACK_PID" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$STACK_PID" 2>/dev/null && kill -KILL "$STACK_PID" 2>/dev/null
  fi
  wait "$STACK_PID" 2>/dev/null || true
  STACK_PID=""
}

# start_stack BIN DATA LOG: devstack with the binaries of BIN, until its ready file appears.
start_stack() {
  local bin="$1" data="$2" i
  STACK_LOG="$3"
  mkdir -p "$data" && chmod 755 "$data"
  env -u PAYGATE_DATABASE_URL -u PAYGATE_REDIS_URL -u PAYGATE_NATS_URL \
    "$NEW/devstack" -root "$ROOT" -bin "$bin" -data-dir "$data" -ready-file "$data/ready" \
    -services "auth gateway callbacks aggregator sandbox" >"$STACK_LOG" 2>&1 &
  STACK_PID=$!
  for ((i = 0; i < READY_TIMEOUT * 4; i++)); do
    [[ -f "$data/ready" ]] && return 0
    kill -0 "$STACK_PID" 2>/dev/null || die "the stack exited before it was ready"
    sleep 0.25
  done
  die "the stack was not ready within ${READY_TIMEOUT}s"
}

# ------------------------------------------------------------ the smoke flow

# shellcheck source=deploy/local/payflow.sh
source "$ROOT/deploy/local/payflow.sh"

smoke() {
  local t0=$SECONDS i
  pay_and_see_callback "$AUTH" "$GW" "$SANDBOX" "$WAIT" compat
  api GET "$GW/api/v1/transactions/$TX_ID" | jq -e --arg id "$TX_ID" '(.id | tostring) == $id' >/dev/null ||
    die "the gateway does not show transaction $TX_ID"
  api GET "$GW/api/v1/user-sessions/active" | jq -e '.sessions | length > 0' >/dev/null ||
    die "the gateway listed no session of the signed-in admin (forwarded to auth)"

  # The statistics of the hours around now (from a whole hour to one millisecond before one).
  local hour from to stats=""
  hour=$(($(date +%s) / 3600 * 3600))
  from="$(date -u -d "@$((hour - 3600))" +%Y-%m-%dT%H:%M:%SZ)"
  to="$(date -u -d "@$((hour + 7199))" +%Y-%m-%dT%H:%M:%S.999Z)"
  for ((i = 0; i < WAIT * 4; i++)); do
    stats="$(api GET "$GW/api/v1/statistics?currency=PHP&from=$from&to=$to")"
    jq -e --argjson p "$PROVIDER_ID" '(.total | tonumber) >= 1 and any(.byProvider[]?; .providerId == $p)' <<<"$stats" >/dev/null && break
    stats=""
    sleep 0.25
  done
  [[ -n "$stats" ]] || die "the statistics did not count transaction $TX_ID within ${WAIT}s"
  log "smoke flow passed in $((SECONDS - t0))s: signed in, transaction $TX_ID shown, its callback delivered, $(jq -r .total <<<"$stats") counted in the statistics"
}

# ------------------------------------------------------------ the runs

main() {
  local name
  for name in git go curl jq; do
    command -v "$name" >/dev/null || die "$name is needed"
  done
  local rev sha short
  rev="$(base_rev)"
  sha="$(resolve_base "$rev")"
  short="$(git rev-parse --short "$sha")"
  log "this checkout: $(git log -1 --format='%h %s' HEAD | cut -c1-100)"
  log "the base:      $(git log -1 --format='%h %s' "$sha" | cut -c1-100)"

  local old="$ROOT/.data/compat/$sha"
  mkdir -p "$ROOT/.data/compat"
  build_base "$sha" "$old"
  if [[ -n "${PAYGATE_COMPAT_NEW_BIN:-}" ]]; then
    NEW="$(cd "$PAYGATE_COMPAT_NEW_BIN" && pwd)"
    for name in "${ALL[@]}" sandbox devstack; do
      [[ -x "$NEW/$name" ]] || die "PAYGATE_COMPAT_NEW_BIN=$PAYGATE_COMPAT_NEW_BIN has no $name: run make build-go"
    done
    log "this checkout's binaries: $NEW"
  else
    NEW="$WORK/new"
    log "building this checkout's services and devstack"
    mkdir -p "$NEW"
    go build -o "$NEW/" ./services/auth ./services/gateway ./services/callbacks ./services/aggregator \
      ./services/sandbox ./deploy/devstack || die "go build of this checkout failed"
  fi
  log "binaries ready after $((SECONDS - START))s"

  local s other t0
  for s in "${UNDER_TEST[@]}"; do
    [[ " ${ALL[*]} " == *" $s "* ]] || die "PAYGATE_COMPAT_SERVICES names $s: the services are ${ALL[*]}"
    RUN="$s new, the rest at $short"
    t0=$SECONDS
    log "run: $RUN"
    mkdir -p "$WORK/$s/bin"
    for other in "${ALL[@]}"; do ln -s "$old/$other" "$WORK/$s/bin/$other"; done
    ln -sf "$NEW/$s" "$WORK/$s/bin/$s"
    ln -s "$NEW/sandbox" "$WORK/$s/bin/sandbox"
    start_stack "$WORK/$s/bin" "$WORK/$s/data" "$WORK/$s/stack.log"
    log "the stack is ready after $((SECONDS - t0))s"
    smoke
    stop_stack
    rm -rf "$WORK/$s/data"
    log "passed in $((SECONDS - t0))s ($RUN)"
  done
  RUN=""
  log "every service at HEAD works with the others at $short: passed in $((SECONDS - START))s"
}

main "$@"
