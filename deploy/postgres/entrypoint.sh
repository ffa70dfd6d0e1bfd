#!/bin/sh
# Initialise the cluster on first start (the user and database named by the environment),
# then run PostgreSQL in the foreground as the postgres user.
set -eu
mkdir -p "$PGDATA" && chown -R postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
as_postgres() { runuser -u postgres -- "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw="$(mktemp)" && printf '%s\n' "$POSTGRES_PASSWORD" >"$pw" && chown postgres "$pw"
  as_postgres initdb -U "$POSTGRES_USER" --pwfile="$pw" --auth-local=trust \
    --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pw"
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "CREATE DATABASE \"${POSTGRES_DB:-$POSTGRES_USER}\"" \
    | as_postgres postgres --single -D "$PGDATA" -c unix_socket_directories=/tmp postgres >/dev/null
fi
exec runuser -u postgres -- postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp
