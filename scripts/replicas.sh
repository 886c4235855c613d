#!/usr/bin/env bash
# A real PostgreSQL primary with two hot standbys, for the replica suite (spec/replicas/), built
# from the installed PostgreSQL with pg_createcluster and pg_basebackup -R on free ports. The
# shared server on 5432 is never touched.
#
#   scripts/replicas.sh up [tag]     builds fc<tag>-primary, fc<tag>-standby (streaming, no delay) and
#                                    fc<tag>-delayed (recovery_min_apply_delay = 300ms), each with
#                                    log_statement = 'all', and prints the variables the suite reads:
#                                    FAST_CRUD_REPLICA_PRIMARY, _STANDBY, _DELAYED (host:port) and
#                                    FAST_CRUD_REPLICA_LOGS (the three log files, in that order)
#   scripts/replicas.sh down [tag]   stops and drops the three clusters
#
# `eval "$(scripts/replicas.sh up)"` exports them; `.ci/run` does that and drops them on exit.
# The tag (default: ci) keeps the clusters of parallel runs apart. Needs root or the postgres user.
set -euo pipefail

command=${1:-}
tag=${2:-ci}
version=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1)
[ -n "$version" ] || { echo "replicas.sh: no PostgreSQL installation under /etc/postgresql" >&2; exit 1; }
names=("fc$tag-primary" "fc$tag-standby" "fc$tag-delayed")

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

down() {
  for name in "${names[@]}"; do
    if [ -d "/etc/postgresql/$version/$name" ]; then
      pg_dropcluster --stop "$version" "$name" >/dev/null 2>&1 || true
    fi
  done
}

# The first port from $1 on that no cluster is configured for and nothing listens on.
free_port() {
  local port=$1
  while ss -ltn "( sport = :$port )" | grep -q LISTEN || grep -qs "^port *= *$port\b" /etc/postgresql/*/*/postgresql.conf; do
    port=$((port + 1))
  done
  echo "$port"
}

# Each cluster's settings, in its conf.d (fsync off: the clusters live for one run and are dropped after it).
configure() {
  cat >"/etc/postgresql/$version/$1/conf.d/fast-crud.conf" <<CONF
listen_addresses = '127.0.0.1'
log_statement = 'all'
log_line_prefix = '%m [%p] %a '
hot_standby = on
max_wal_senders = 10
wal_level = replica
fsync = off
full_page_writes = off
recovery_min_apply_delay = '${2:-0}'
CONF
}

up() {
  down
  local base=$((55000 + $(printf '%s' "$tag" | cksum | cut -d' ' -f1) % 2000 * 3))
  local primary standby delayed
  primary=$(free_port "$base")
  pg_createcluster "$version" "${names[0]}" -p "$primary" --start-conf=manual -- --auth=trust >/dev/null
  configure "${names[0]}"
  pg_ctlcluster --skip-systemctl-redirect "$version" "${names[0]}" start
  as_postgres psql -h 127.0.0.1 -p "$primary" -d postgres -qc 'CREATE DATABASE test' >/dev/null

  local index=1 port delay
  for delay in 0 300ms; do
    port=$(free_port $((primary + index)))
    local name=${names[$index]}
    pg_createcluster "$version" "$name" -p "$port" --start-conf=manual -- --auth=trust >/dev/null
    local data="/var/lib/postgresql/$version/$name"
    rm -rf "${data:?}"/*
    as_postgres pg_basebackup -h 127.0.0.1 -p "$primary" -U postgres -D "$data" -R -X stream -c fast
    configure "$name" "$delay"
    pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start
    if [ "$index" = 1 ]; then standby=$port; else delayed=$port; fi
    index=$((index + 1))
  done

  # Ready when each standby is in recovery and has replayed the primary's test database.
  for port in "$standby" "$delayed"; do
    for _ in $(seq 1 100); do
      if as_postgres psql -h 127.0.0.1 -p "$port" -d test -Atqc 'SELECT pg_is_in_recovery()' 2>/dev/null | grep -q t; then
        break
      fi
      sleep 0.1
    done
  done
  local logs=""
  for name in "${names[@]}"; do logs+="/var/log/postgresql/postgresql-$version-$name.log:"; done
  echo "export FAST_CRUD_REPLICA_PRIMARY=127.0.0.1:$primary"
  echo "export FAST_CRUD_REPLICA_STANDBY=127.0.0.1:$standby"
  echo "export FAST_CRUD_REPLICA_DELAYED=127.0.0.1:$delayed"
  echo "export FAST_CRUD_REPLICA_LOGS=${logs%:}"
}

case "$command" in
  up) up ;;
  down) down ;;
  *) echo "usage: scripts/replicas.sh up|down [tag]" >&2; exit 2 ;;
esac
