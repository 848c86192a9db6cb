#!/usr/bin/env bash
# Ensures the services the Go tests talk to are up: Postgres, Redis and NATS with JetStream.
#
# For each one, the address comes from the test URL of docs/contracts.md:
#   PAYGATE_TEST_DATABASE_URL  (default postgres://postgres@127.0.0.1:5432/test?sslmode=disable)
#   PAYGATE_TEST_REDIS_URL     (default redis://127.0.0.1:6379/15)
#   PAYGATE_TEST_NATS_URL      (default nats://127.0.0.1:4222)
# If something answers on that port it is used as it is. Otherwise, for a local address, one is
# started from the system's binaries (the Debian packages postgresql, redis-server and nats-server
# are installed with apt-get when missing), with its data under .data/deps/ of the repository, and
# left running. Running it again is harmless.
#
# Postgres: the role `postgres` and the databases `test`, `paygate` and the one named in the URL are
# created when missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEPS_DIR="${PAYGATE_DEPS_DIR:-$ROOT/.data/deps}"
WAIT_SECONDS="${PAYGATE_DEPS_WAIT_SECONDS:-60}"

DB_URL="${PAYGATE_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}"
REDIS_URL="${PAYGATE_TEST_REDIS_URL:-redis://127.0.0.1:6379/15}"
NATS_URL="${PAYGATE_TEST_NATS_URL:-nats://127.0.0.1:4222}"

log() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

# url_hostport URL DEFAULT_PORT prints "host port" of a scheme://[user@]host[:port][/...] URL.
url_hostport() {
  local rest="${1#*://}"
  rest="${rest%%/*}"
  rest="${rest%%\?*}"
  rest="${rest##*@}"
  local host="${rest%:*}" port="${rest##*:}"
  if [[ "$rest" != *:* ]]; then host="$rest"; port="$2"; fi
  printf '%s %s\n' "${host:-127.0.0.1}" "$port"
}

# answers HOST PORT succeeds when a TCP connection to HOST:PORT opens within a second.
answers() { timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

# wait_port NAME HOST PORT waits, with bounded retries, until HOST:PORT answers.
wait_port() {
  local name="$1" host="$2" port="$3" i
  for ((i = 0; i < WAIT_SECONDS * 4; i++)); do
    answers "$host" "$port" && return 0
    sleep 0.25
  done
  die "$name did not answer on $host:$port within ${WAIT_SECONDS}s"
}

is_local() { [[ "$1" == 127.0.0.1 || "$1" == localhost ]]; }

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else die "need root to run: $* (run it yourself, or start the service)"
  fi
}

APT_UPDATED=
apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found: install $* yourself"
  log "installing Debian packages: $*"
  if [[ -z "$APT_UPDATED" ]]; then
    as_root apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# ---------------------------------------------------------------- Postgres

pg_bindir() {
  local d
  d="$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n1)"
  [[ -n "$d" && -x "$d/initdb" ]] && printf '%s\n' "$d"
}

# pg_run CMD... runs a Postgres server binary as the postgres OS user when we are root.
pg_run() {
  if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

ensure_postgres() {
  local host port
  read -r host port < <(url_hostport "$DB_URL" 5432)
  local bindir
  if answers "$host" "$port"; then
    log "postgres: using the server on $host:$port"
  else
    is_local "$host" || die "postgres: nothing answers on $host:$port (not local: start it yourself)"
    bindir="$(pg_bindir)" || true
    if [[ -z "$bindir" ]]; then
      apt_install postgresql
      bindir="$(pg_bindir)" || die "postgres: no initdb under /usr/lib/postgresql/*/bin after installing"
    fi
  fi
  # Installing the package may have started the system's own cluster on this port.
  if ! answers "$host" "$port"; then
    local data="$DEPS_DIR/pg-$port" run="$DEPS_DIR/pg-$port.run"
    mkdir -p "$data" "$run"
    if [[ $EUID -eq 0 ]]; then
      id postgres >/dev/null 2>&1 || die "postgres: no postgres OS user to run the server as"
      chown postgres:postgres "$data" "$run"
      # The postgres user must be able to reach the data folder.
      chmod o+x "$DEPS_DIR" "$(dirname "$DEPS_DIR")"
      runuser -u postgres -- test -w "$data" ||
        die "postgres: the postgres OS user cannot reach $data (every folder above it needs o+x)"
    fi
    chmod 700 "$data"
    if [[ ! -f "$data/PG_VERSION" ]]; then
      log "postgres: initdb into ${data#"$ROOT"/}"
      pg_run "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$run/initdb.log" 2>&1 ||
        { cat "$run/initdb.log" >&2; die "postgres: initdb failed"; }
    fi
    log "postgres: starting $bindir/postgres on 127.0.0.1:$port"
    pg_run "$bindir/pg_ctl" -D "$data" -l "$run/server.log" -s \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $run -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      start >/dev/null || { tail -n 30 "$run/server.log" >&2 || true; die "postgres: pg_ctl start failed"; }
    wait_port postgres "$host" "$port"
  fi

  local psql=(psql)
  command -v psql >/dev/null || psql=("$(pg_bindir)/psql")
  local dbname="${DB_URL#*://}"
  dbname="${dbname#*/}"
  dbname="${dbname%%\?*}"
  local i
  for ((i = 0; i < WAIT_SECONDS * 4; i++)); do
    "${psql[@]}" -h "$host" -p "$port" -U postgres -d postgres -tAqc 'select 1' >/dev/null 2>&1 && break
    sleep 0.25
  done
  "${psql[@]}" -h "$host" -p "$port" -U postgres -d postgres -tAqc 'select 1' >/dev/null ||
    die "postgres: cannot sign in as role postgres without a password on $host:$port: allow it (trust for 127.0.0.1 in pg_hba.conf), stop that server so this script starts its own, or point PAYGATE_TEST_DATABASE_URL elsewhere"
  local db
  for db in test paygate "$dbname"; do
    [[ -n "$db" ]] || continue
    if [[ -z "$("${psql[@]}" -h "$host" -p "$port" -U postgres -d postgres -tAqc "select 1 from pg_database where datname = '$db'")" ]]; then
      "${psql[@]}" -h "$host" -p "$port" -U postgres -d postgres -qc "create database \"$db\"" >/dev/null
      log "postgres: created database $db"
    fi
  done
}

# ---------------------------------------------------------------- Redis

ensure_redis() {
  local host port
  read -r host port < <(url_hostport "$REDIS_URL" 6379)
  if answers "$host" "$port"; then
    log "redis: using the server on $host:$port"
    return
  fi
  is_local "$host" || die "redis: nothing answers on $host:$port (not local: start it yourself)"
  if ! command -v redis-server >/dev/null; then
    apt_install redis-server
    # The package may have started the system's own server on this port.
    answers "$host" "$port" && { log "redis: using the server on $host:$port"; return; }
  fi
  local dir="$DEPS_DIR/redis-$port"
  mkdir -p "$dir"
  log "redis: starting redis-server on 127.0.0.1:$port"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
    --dir "$dir" --logfile "$dir/redis.log" --pidfile "$dir/redis.pid" >/dev/null
  wait_port redis "$host" "$port"
}

# ---------------------------------------------------------------- NATS

ensure_nats() {
  local host port
  read -r host port < <(url_hostport "$NATS_URL" 4222)
  if answers "$host" "$port"; then
    log "nats: using the server on $host:$port"
    return
  fi
  is_local "$host" || die "nats: nothing answers on $host:$port (not local: start it yourself)"
  if ! command -v nats-server >/dev/null && [[ ! -x /usr/sbin/nats-server ]]; then
    apt_install nats-server
    answers "$host" "$port" && { log "nats: using the server on $host:$port"; return; }
  fi
  local bin
  bin="$(command -v nats-server || echo /usr/sbin/nats-server)"
  local dir="$DEPS_DIR/nats-$port"
  mkdir -p "$dir"
  log "nats: starting $bin with JetStream on 127.0.0.1:$port"
  setsid nohup "$bin" -a 127.0.0.1 -p "$port" -js -sd "$dir" -l "$dir/nats.log" </dev/null >/dev/null 2>&1 &
  wait_port nats "$host" "$port"
}

mkdir -p "$DEPS_DIR"
ensure_postgres
ensure_redis
ensure_nats
log "ready: $DB_URL $REDIS_URL $NATS_URL"
