#!/usr/bin/env bash
# pg-test.sh: run a command (default: go test ./...) beside a throwaway
# PostgreSQL cluster, with SVCRECON_TEST_POSTGRES set to its URL.
#
#   scripts/pg-test.sh                      # go test ./...
#   scripts/pg-test.sh go test -run Contract ./internal/store/
#
# It uses Debian's postgresql package (installed when missing and running as
# root), starts the cluster as the postgres user in a temp directory on a
# free loopback port with its socket in that directory, and stops and
# removes it at the end, whatever the command's outcome.
set -euo pipefail

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
bin=$(pgbin)
if [ -z "$bin" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "pg-test: PostgreSQL is not installed: sudo apt-get install postgresql" >&2
    exit 1
  fi
  echo "pg-test: installing Debian's postgresql package" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  bin=$(pgbin)
fi

# As root, the cluster runs as postgres; otherwise as the caller.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

dir=$(mktemp -d /tmp/svcrecon-pg.XXXXXX)
chmod 755 "$dir"
[ "$(id -u)" -eq 0 ] && chown postgres "$dir"

# A free loopback port: the first from 55432 that nothing answers on.
port=55432
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done

stop() {
  as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT

as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 >/dev/null
as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
  -o "-h 127.0.0.1 -p $port -k $dir -F -c max_connections=200 -c fsync=off -c full_page_writes=off" start >/dev/null ||
  { cat "$dir/log" >&2; exit 1; }

export SVCRECON_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
echo "pg-test: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (SVCRECON_TEST_POSTGRES)" >&2
if [ $# -eq 0 ]; then set -- go test ./...; fi
"$@"
