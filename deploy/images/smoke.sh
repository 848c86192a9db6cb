#!/usr/bin/env bash
# Runs the six images built by deploy/images/build.sh (make images) and drives one payment through
# them (`make images-test`):
#
#   - the services and the console run as containers on the host network, read-only, with every
#     capability dropped, against the local Postgres (a database of its own, paygate_images,
#     made afresh), Redis (database 13) and a NATS JetStream server of its own (nats-server on
#     127.0.0.1:14222 with a temporary store, so that no other stack's events reach it), with
#     PAYGATE_DEMO=true and the environment deploy/devstack gives each service;
#   - ports away from the local stack's: console 18080, auth/gateway/callbacks/aggregator/sandbox
#     18081-18085 (HTTP) and 19081-19084 (gRPC);
#   - it waits for every /readyz, checks the console serves its shell and config, signs in as
#     admin, adds the sandbox's demo merchant as a callback URL of Acme Games - GoVip, initializes
#     a deposit with the admin's token and waits until the demo merchant has received the
#     transaction's callback with a valid signature.
#
# Images that are missing are built first (deploy/images/build.sh, which also installs podman where
# there is no engine). Containers, the NATS server and the database are removed on exit, whatever happens. Where
# containers cannot run (no engine, no user namespaces or cgroups the runtime accepts...), it says
# "images-test: skipped: <reason>" and exits 0, so that it never fails a machine without container
# support; a failure once the containers run is an error.
#
# Environment: PAYGATE_IMAGES_ENGINE (podman or docker), PAYGATE_IMAGES_TAG (default dev),
# PAYGATE_IMAGES_RUNTIME (podman's OCI runtime, e.g. crun or runc; by default podman's own, then
# runc), PAYGATE_IMAGES_WAIT_SECONDS (default 90, per wait).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TAG="${PAYGATE_IMAGES_TAG:-dev}"
WAIT="${PAYGATE_IMAGES_WAIT_SECONDS:-90}"
NAME=paygate-images-test
DB=paygate_images
PG_ADMIN_URL="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
DB_URL="postgres://postgres@127.0.0.1:5432/$DB?sslmode=disable"
REDIS_URL="redis://127.0.0.1:6379/13"
NATS_PORT=14222
CONSOLE_PORT=18080
SERVICES=(auth gateway callbacks aggregator sandbox)
declare -A HTTP=([auth]=18081 [gateway]=18082 [callbacks]=18083 [aggregator]=18084 [sandbox]=18085)
declare -A GRPC=([auth]=19081 [gateway]=19082 [callbacks]=19083 [aggregator]=19084 [sandbox]=19085)
WORK="$(mktemp -d)"
START=$SECONDS

log() { printf 'images-test: %s\n' "$*"; }
skip() { printf 'images-test: skipped: %s\n' "$*"; exit 0; }
die() { printf 'images-test: FAILED: %s\n' "$*" >&2; exit 1; }

ENGINE=""
NATS_PID=""
STARTED=()
cleanup() {
  local rc=$?
  set +e
  if ((rc != 0)) && [[ -n "$ENGINE" ]]; then
    for c in "${STARTED[@]}"; do
      printf '\n--- the last lines of %s ---\n' "$c" >&2
      "$ENGINE" logs --tail 15 "$c" >&2 2>&1
    done
  fi
  for c in "${STARTED[@]}"; do "$ENGINE" rm -f -t 5 "$c" >/dev/null 2>&1; done
  [[ -n "$ENGINE" ]] && "$ENGINE" volume rm -f "$NAME-files" >/dev/null 2>&1
  [[ -n "$NATS_PID" ]] && kill "$NATS_PID" 2>/dev/null && wait "$NATS_PID" 2>/dev/null
  if [[ -n "${DB_MADE:-}" ]]; then
    psql -q "$PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------ can containers run here at all?

pick_engine() {
  local e="${PAYGATE_IMAGES_ENGINE:-}"
  if [[ -n "$e" ]]; then
    command -v "$e" >/dev/null || skip "PAYGATE_IMAGES_ENGINE=$e is not installed"
    ENGINE="$e"
  elif command -v podman >/dev/null; then
    ENGINE=podman
  elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    ENGINE=docker
  else
    skip "no container engine that can run images (podman, or docker with a daemon): make images installs podman"
  fi
  local out
  out="$("$ENGINE" info 2>&1)" || skip "$ENGINE info failed: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
}

# The limits a container asks for: the engine's defaults (podman asks for 1048576 open files) are
# refused where the host's hard limits are lower and CAP_SYS_RESOURCE is withheld.
ulimit_flags() {
  local nofile nproc
  nofile="$(ulimit -Sn)"
  [[ "$nofile" == unlimited || "$nofile" -gt 65536 ]] && nofile=65536
  nproc="$(ulimit -Su)"
  [[ "$nproc" == unlimited || "$nproc" -gt 4096 ]] && nproc=4096
  printf -- '--ulimit nofile=%s:%s --ulimit nproc=%s:%s' "$nofile" "$nofile" "$nproc" "$nproc"
}

# RUNTIME_FLAGS: the runtime that works here. Debian's crun refuses a hybrid cgroup layout with
# controllers in the v2 hierarchy ("cgroups in hybrid mode not supported"); runc accepts it. The
# probe is the console image started without its files: it prints its own error and exits 1,
# which proves that the process ran.
RUNTIME_FLAGS=()
probe_runtime() {
  local tries=("") out reasons=""
  [[ "$ENGINE" == podman ]] && command -v runc >/dev/null && tries+=("--runtime runc")
  [[ -n "${PAYGATE_IMAGES_RUNTIME:-}" ]] && tries=("--runtime $PAYGATE_IMAGES_RUNTIME")
  for t in "${tries[@]}"; do
    # shellcheck disable=SC2086,SC2046
    out="$("$ENGINE" $t run --rm --network host $(ulimit_flags) -e PAYGATE_CONSOLE_DIR=/nonexistent \
      "paygate/console:$TAG" 2>&1)" || true
    if [[ "$out" == *"console: "* ]]; then
      read -r -a RUNTIME_FLAGS <<<"$t"
      log "containers run here (${t:-the default runtime})"
      return
    fi
    reasons+="[${t:-default runtime}] $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ') "
  done
  skip "containers cannot run here: $reasons"
}

# ------------------------------------------------------------ helpers

answers() { timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

# wait_ready NAME URL: until URL answers 200, the container exits, or WAIT seconds pass.
wait_ready() {
  local c="$1" url="$2" i
  for ((i = 0; i < WAIT * 4; i++)); do
    curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null && return 0
    if [[ "$("$ENGINE" inspect -f '{{.State.Running}}' "$c" 2>/dev/null)" != true ]]; then
      die "$c exited while starting"
    fi
    sleep 0.25
  done
  die "$c did not answer 200 on $url within ${WAIT}s"
}

# api and pay_and_see_callback.
# shellcheck source=deploy/local/payflow.sh
source "$ROOT/deploy/local/payflow.sh"

# run_container NAME IMAGE [ENGINE-ARGS...] [-- no args to the image]
run_container() {
  local c="$NAME-$1" image="$2"
  shift 2
  "$ENGINE" rm -f "$c" >/dev/null 2>&1 || true
  STARTED+=("$c")
  # shellcheck disable=SC2046
  "$ENGINE" "${RUNTIME_FLAGS[@]}" run -d --name "$c" --network host --read-only --tmpfs /tmp \
    --cap-drop all --security-opt no-new-privileges $(ulimit_flags) "$@" "$image" >/dev/null ||
    die "$ENGINE run $c failed"
}

service_env() {
  local s="$1"
  printf '%s\n' \
    "PAYGATE_HTTP_ADDR=127.0.0.1:${HTTP[$s]}" \
    "PAYGATE_GRPC_ADDR=127.0.0.1:${GRPC[$s]}" \
    "PAYGATE_DATABASE_URL=$DB_URL" \
    "PAYGATE_REDIS_URL=$REDIS_URL" \
    "PAYGATE_NATS_URL=nats://127.0.0.1:$NATS_PORT" \
    "PAYGATE_DEMO=true" \
    "PAYGATE_LOG_LEVEL=warn" \
    "PAYGATE_JWKS_URL=http://127.0.0.1:${HTTP[auth]}/.well-known/jwks.json" \
    "PAYGATE_AUTH_GRPC_URL=127.0.0.1:${GRPC[auth]}" \
    "PAYGATE_CONSOLE_ORIGINS=http://localhost:$CONSOLE_PORT,http://127.0.0.1:$CONSOLE_PORT" \
    "PAYGATE_SANDBOX_URL=http://127.0.0.1:${HTTP[sandbox]}" \
    "PAYGATE_SANDBOX_GATEWAY_URL=http://127.0.0.1:${HTTP[gateway]}" \
    "PAYGATE_CALLBACKS_GRPC_ADDR=127.0.0.1:${GRPC[callbacks]}" \
    "PAYGATE_GATEWAY_GRPC_ADDR=127.0.0.1:${GRPC[gateway]}" \
    "PAYGATE_AGGREGATOR_GRPC_ADDR=127.0.0.1:${GRPC[aggregator]}" \
    "PAYGATE_ALLOW_PRIVATE_URLS=true"
  if [[ "$s" == auth ]]; then
    printf '%s\n' "PAYGATE_WEBAUTHN_RP_ID=localhost" "PAYGATE_WEBAUTHN_ORIGINS=http://localhost:$CONSOLE_PORT"
  fi
}

start_service() {
  local s="$1" envfile="$WORK/$1.env" extra=()
  service_env "$s" >"$envfile"
  # The gateway's export files: the only path it writes besides /tmp.
  # (a named volume: the engine gives a new one the image's folder's owner, 65532).
  [[ "$s" == gateway ]] && extra+=(-v "$NAME-files:/var/lib/paygate/files")
  run_container "$s" "paygate/$s:$TAG" --env-file "$envfile" "${extra[@]}"
}

# ------------------------------------------------------------ the run

main() {
  # With no engine at all, make images installs podman (or says why it cannot).
  if [[ -z "${PAYGATE_IMAGES_ENGINE:-}" ]] && ! command -v podman >/dev/null &&
    ! { command -v docker >/dev/null && docker info >/dev/null 2>&1; }; then
    log "no container engine: running make images (deploy/images/build.sh), which installs podman"
    deploy/images/build.sh >"$WORK/build.log" 2>&1 ||
      skip "no container engine, and deploy/images/build.sh could not provide one: $(tail -n 2 "$WORK/build.log" | tr '\n' ' ')"
  fi
  pick_engine
  local name missing=()
  for name in "${SERVICES[@]}" console; do
    "$ENGINE" image inspect "paygate/$name:$TAG" >/dev/null 2>&1 || missing+=("$name")
  done
  if ((${#missing[@]} > 0)); then
    log "images missing (${missing[*]}): running deploy/images/build.sh"
    PAYGATE_IMAGES_ENGINE="$ENGINE" deploy/images/build.sh >"$WORK/build.log" 2>&1 ||
      { tail -n 20 "$WORK/build.log" >&2; die "deploy/images/build.sh failed"; }
  fi
  probe_runtime

  for p in "$CONSOLE_PORT" "${HTTP[@]}" "${GRPC[@]}" "$NATS_PORT"; do
    answers 127.0.0.1 "$p" && die "port $p is already in use (another images-test running?)"
  done
  for name in psql curl jq; do
    command -v "$name" >/dev/null || die "$name is needed (apt-get install postgresql-client curl jq)"
  done
  deploy/local/deps.sh >/dev/null
  command -v nats-server >/dev/null || die "nats-server is missing (deploy/local/deps.sh installs it)"

  log "fresh database $DB, Redis db 13, NATS on :$NATS_PORT"
  PGOPTIONS='-c client_min_messages=warning' psql -q "$PG_ADMIN_URL" \
    -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
  DB_MADE=1
  command -v redis-cli >/dev/null && redis-cli -n 13 FLUSHDB >/dev/null
  nats-server -a 127.0.0.1 -p "$NATS_PORT" -js -sd "$WORK/nats" >"$WORK/nats.log" 2>&1 &
  NATS_PID=$!
  local i
  for ((i = 0; i < 40; i++)); do answers 127.0.0.1 "$NATS_PORT" && break; sleep 0.25; done
  answers 127.0.0.1 "$NATS_PORT" || die "nats-server did not start: $(tail -n 5 "$WORK/nats.log")"

  "$ENGINE" volume rm -f "$NAME-files" >/dev/null 2>&1 || true
  # auth first: the others fetch its JWKS when they start.
  log "starting auth"
  start_service auth
  wait_ready "$NAME-auth" "http://127.0.0.1:${HTTP[auth]}/readyz"
  log "starting gateway, callbacks, aggregator, sandbox, console"
  for name in gateway callbacks aggregator sandbox; do start_service "$name"; done
  jq -n --arg a "http://localhost:${HTTP[auth]}" --arg g "http://localhost:${HTTP[gateway]}" \
    --arg c "http://localhost:${HTTP[callbacks]}" --arg ag "http://localhost:${HTTP[aggregator]}" \
    '{authUrl: $a, gatewayUrl: $g, callbacksUrl: $c, aggregatorUrl: $ag,
      remotes: {transactions: "/remotes/transactions/remoteEntry.js", providers: "/remotes/providers/remoteEntry.js",
                files: "/remotes/files/remoteEntry.js", security: "/remotes/security/remoteEntry.js"}}' >"$WORK/config.json"
  chmod a+r "$WORK/config.json"
  chmod a+x "$WORK"
  run_container console "paygate/console:$TAG" -e "PAYGATE_HTTP_ADDR=127.0.0.1:$CONSOLE_PORT" \
    -v "$WORK/config.json:/srv/console/config.json:ro"
  for name in gateway callbacks aggregator sandbox; do
    wait_ready "$NAME-$name" "http://127.0.0.1:${HTTP[$name]}/readyz"
  done
  wait_ready "$NAME-console" "http://127.0.0.1:$CONSOLE_PORT/healthz"
  log "every container is ready after $((SECONDS - START))s"
  local c seen
  for c in "${STARTED[@]}"; do
    seen="$("$ENGINE" inspect -f '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}' "$c")"
    [[ "$seen" == "65532:65532 true" ]] || die "$c runs as '$seen', not as user 65532 on a read-only root"
  done
  log "every container runs as user 65532 on a read-only root filesystem"

  # The console: the shell on any route, the mounted config, a policy that names the gateway.
  local page headers
  page="$(curl -fsS --max-time 5 "http://127.0.0.1:$CONSOLE_PORT/transactions")" || die "the console did not serve /transactions"
  [[ "$page" == *"<html"* || "$page" == *"<!doctype"* || "$page" == *"<!DOCTYPE"* ]] || die "the console's /transactions is not the shell's page"
  curl -fsS --max-time 5 "http://127.0.0.1:$CONSOLE_PORT/config.json" | jq -e --arg g "http://localhost:${HTTP[gateway]}" '.gatewayUrl == $g' >/dev/null ||
    die "the console does not serve the mounted config.json"
  headers="$(curl -fsS --max-time 5 -D - -o /dev/null "http://127.0.0.1:$CONSOLE_PORT/")"
  [[ "$headers" == *"connect-src 'self' http://localhost:${HTTP[auth]}"* ]] || die "the console's policy does not name the services: $headers"
  curl -fsS --max-time 5 -o /dev/null "http://127.0.0.1:$CONSOLE_PORT/remotes/transactions/remoteEntry.js" ||
    die "the console does not serve the transactions remote"
  log "console: the shell, its config and the remotes are served"

  # Acme Games pays through GoVip; the sandbox's demo merchant receives its callbacks.
  local gw="http://127.0.0.1:${HTTP[gateway]}"
  pay_and_see_callback "http://127.0.0.1:${HTTP[auth]}" "$gw" "http://127.0.0.1:${HTTP[sandbox]}" "$WAIT" images-test
  local collab_id="$COLLAB_ID"

  # An export: the gateway writes the file to its volume, with times in a named zone.
  local export_type columns file_id info rows=""
  export_type="$(api GET "$gw/api/v1/files/export/types" | jq -r '.[0].type')"
  columns="$(api GET "$gw/api/v1/files/export/columns/$export_type" | jq -c '[.columns[0:4][] | {(.field): .name}] | add')"
  file_id="$(api POST "$gw/api/v1/files/export" "$(jq -nc --argjson c "$collab_id" --argjson t "$export_type" --argjson cols "$columns" \
    '{collabId: $c, filter: {}, settings: {exportType: $t, fileType: 0, columns: $cols, timeZone: "Asia/Manila"}}')" | jq -r '.id // empty')"
  [[ -n "$file_id" ]] || die "the export answered no file id"
  for ((i = 0; i < WAIT * 2; i++)); do
    info="$(api GET "$gw/api/v1/files/$file_id/info")"
    [[ "$(jq -r '.status' <<<"$info")" == -* ]] && die "export $file_id failed: $info"
    rows="$(jq -r 'select(.status == 2) | .manifest.rowCount // empty' <<<"$info")"
    [[ -n "$rows" ]] && break
    sleep 0.5
  done
  [[ -n "$rows" ]] || die "export $file_id did not finish within ${WAIT}s: $(api GET "$gw/api/v1/files/$file_id/info")"
  curl -fsS --max-time 10 -H "Authorization: Bearer $TOKEN" -o "$WORK/export.csv" "$gw/api/v1/files/$file_id" ||
    die "export $file_id could not be downloaded"
  log "export $file_id written to the gateway's volume and downloaded: $rows row(s), $(wc -c <"$WORK/export.csv") bytes"
  log "passed in $((SECONDS - START))s"
}

main "$@"
