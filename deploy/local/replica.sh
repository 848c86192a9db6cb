#!/usr/bin/env bash
# Starts a Postgres streaming replica on this machine, for the read pool (PAYGATE_DATABASE_READ_URL,
# docs/operations.md "Read replica"), its tests and its bench.
#
#   deploy/local/replica.sh start DIR   makes DIR, starts the servers, writes DIR/env and prints it:
#                                       PRIMARY_URL=postgres://…  REPLICA_URL=postgres://…
#   deploy/local/replica.sh stop DIR    stops the servers it started in DIR and removes DIR
#
# By default it makes a primary of its own in DIR/primary (initdb, replication allowed from
# 127.0.0.1, database `paygate`), then the replica from it with `pg_basebackup -R` in DIR/replica.
# With PAYGATE_REPLICA_FROM=<postgres URL of a local primary> it copies that primary instead (its
# pg_hba.conf must allow `replication` connections from 127.0.0.1: the cluster deploy/local/deps.sh
# makes with initdb does; a packaged cluster often does not). Each server listens on 127.0.0.1 on a
# free port, with its socket in DIR. The replica runs with hot_standby_feedback on, so that a long
# export on it is not cancelled by the primary's vacuum (docs/operations.md).
#
# It uses the binaries deploy/local/deps.sh uses (the Debian package postgresql, which brings
# pg_basebackup) and, run as root, runs the servers as the postgres OS user, as deps.sh does.
set -euo pipefail

log() { printf 'replica: %s\n' "$*" >&2; }
die() { printf 'replica: error: %s\n' "$*" >&2; exit 1; }

pg_bindir() {
  local d
  d="$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n1)"
  [[ -n "$d" && -x "$d/initdb" && -x "$d/pg_basebackup" ]] && printf '%s\n' "$d"
}

# pg_run CMD... runs a Postgres binary as the postgres OS user when we are root.
pg_run() {
  if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

answers() { timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# start_server DATADIR NAME [SETTINGS...] starts a server on the first free port from a random
# one and prints its port.
start_server() {
  local data="$1" name="$2" port try
  shift 2
  for ((try = 0; try < 20; try++)); do
    port=$((20000 + RANDOM % 20000))
    answers "$port" && continue
    if pg_run "$BIN/pg_ctl" -D "$data" -l "$DIR/$name.log" -s -w -t 120 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $DIR -c fsync=off -c full_page_writes=off $*" start >/dev/null; then
      printf '%s\n' "$port"
      return 0
    fi
    # A port taken between the check and the start: try another.
    grep -q 'could not bind\|Address already in use' "$DIR/$name.log" 2>/dev/null || {
      tail -n 20 "$DIR/$name.log" >&2 || true
      die "$name: pg_ctl start failed"
    }
  done
  die "$name: no free port found"
}

cmd="${1:-}" DIR="${2:-}"
[[ -n "$DIR" ]] || die "usage: $0 start|stop DIR"

case "$cmd" in
start)
  BIN="$(pg_bindir)" || die "no initdb and pg_basebackup under /usr/lib/postgresql/*/bin (install the Debian package postgresql)"
  PSQL="$(command -v psql || echo "$BIN/psql")"
  [[ ! -e "$DIR" ]] || die "$DIR exists: stop it first, or choose another"
  mkdir -p "$DIR"
  DIR="$(cd "$DIR" && pwd)"
  if [[ $EUID -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || die "no postgres OS user to run the servers as"
    chown postgres:postgres "$DIR"
    runuser -u postgres -- test -w "$DIR" || die "the postgres OS user cannot reach $DIR (every folder above it needs o+x)"
  fi
  chmod 700 "$DIR"

  if [[ -n "${PAYGATE_REPLICA_FROM:-}" ]]; then
    primary_url="$PAYGATE_REPLICA_FROM"
    log "copying the primary of $primary_url"
  else
    log "initdb of a primary in $DIR/primary"
    pg_run "$BIN/initdb" -D "$DIR/primary" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$DIR/initdb.log" 2>&1 ||
      { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    # initdb's pg_hba.conf already allows replication from 127.0.0.1 with --auth=trust; say so
    # explicitly all the same, since the whole point is to replicate.
    pg_run bash -c "printf 'host replication all 127.0.0.1/32 trust\n' >>'$DIR/primary/pg_hba.conf'"
    pport="$(start_server "$DIR/primary" primary -c wal_level=replica -c max_wal_senders=5)"
    primary_url="postgres://postgres@127.0.0.1:$pport/paygate?sslmode=disable"
    "$PSQL" -h 127.0.0.1 -p "$pport" -U postgres -d postgres -qc 'CREATE DATABASE paygate' >/dev/null
    printf '%s\n' "$pport" >"$DIR/primary.port"
  fi

  # pg_basebackup takes a conninfo: the URL without the database, so that it connects for
  # replication; -R writes primary_conninfo and standby.signal, -X stream brings the WAL of the copy.
  log "pg_basebackup into $DIR/replica"
  pg_run "$BIN/pg_basebackup" -d "$primary_url" -D "$DIR/replica" -R -X stream -c fast >"$DIR/basebackup.log" 2>&1 ||
    { cat "$DIR/basebackup.log" >&2; die "pg_basebackup failed (does the primary allow replication from 127.0.0.1?)"; }
  rport="$(start_server "$DIR/replica" replica -c hot_standby=on -c hot_standby_feedback=on)"
  printf '%s\n' "$rport" >"$DIR/replica.port"
  db="${primary_url#*://}"
  db="${db#*/}"
  db="${db%%\?*}"
  replica_url="postgres://postgres@127.0.0.1:$rport/${db:-postgres}?sslmode=disable"
  printf 'PRIMARY_URL=%s\nREPLICA_URL=%s\n' "$primary_url" "$replica_url" >"$DIR/env"
  # The replica answers once it has replayed to a consistent point.
  for ((i = 0; i < 240; i++)); do
    [[ "$("$PSQL" -h 127.0.0.1 -p "$rport" -U postgres -d postgres -tAqc 'SELECT pg_is_in_recovery()' 2>/dev/null)" == t ]] && break
    sleep 0.25
  done
  [[ "$("$PSQL" -h 127.0.0.1 -p "$rport" -U postgres -d postgres -tAqc 'SELECT pg_is_in_recovery()' 2>/dev/null)" == t ]] ||
    die "the replica on port $rport does not answer as a standby (see $DIR/replica.log)"
  log "primary $primary_url, replica $replica_url"
  cat "$DIR/env"
  ;;
stop)
  [[ -d "$DIR" ]] || exit 0
  BIN="$(pg_bindir)" || die "no Postgres binaries under /usr/lib/postgresql/*/bin"
  for name in replica primary; do
    if [[ -f "$DIR/$name/postmaster.pid" ]]; then
      pg_run "$BIN/pg_ctl" -D "$DIR/$name" -s -m immediate -w -t 60 stop >/dev/null 2>&1 || log "$name: pg_ctl stop failed"
    fi
  done
  rm -rf "$DIR"
  ;;
*)
  die "usage: $0 start|stop DIR"
  ;;
esac
