#!/usr/bin/env bash
# pg-nightly.sh CALLS.jsonl [RECORDS]
#
# The nightly's four commands (sync, import-calls, check, export --format
# both) of the sandbox's month of RECORDS statement records (default
# 1000000; CALLS.jsonl its call log, e.g. bench-duckdb.sh's DIR/calls.jsonl)
# on SQLite, then on PostgreSQL, against one sandbox: each command's wall
# time, the client's CPU and the server's (every postgres process, its
# reaped children included, from /proc), and peak RSS. Run it beside a
# throwaway cluster, as root for /proc of the postgres user's processes:
#
#   scripts/pg-test.sh scripts/pg-nightly.sh bench-month-1000000/calls.jsonl
set -euo pipefail
calls=$(realpath "${1:?usage: pg-nightly.sh CALLS.jsonl [RECORDS]}")
records=${2:-1000000}
: "${SVCRECON_TEST_POSTGRES:?run it under scripts/pg-test.sh}"
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/pg-nightly.XXXXXX)
(cd "$repo" && go build -o "$dir/" ./cmd/reconcile ./cmd/svcsandbox)
cd "$dir"
"$dir/svcsandbox" --total-records "$records" --end 2026-11-20 --addr 127.0.0.1:0 >sb.env 2>sb.err &
sb=$!
trap 'kill $sb 2>/dev/null; wait $sb 2>/dev/null; rm -rf "$dir"' EXIT
until grep -q '^export' sb.env 2>/dev/null; do kill -0 $sb || { cat sb.err; exit 1; }; sleep 0.5; done
# shellcheck disable=SC1091
. ./sb.env
# servercpu: the clock ticks of every postgres process, reaped children included.
servercpu() {
  local t=0 p
  for p in $(pgrep -u postgres || true); do
    t=$((t + $(awk '{print $14+$15+$16+$17}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo $t
}
hz=$(getconf CLK_TCK)
from=2026-10-22 to=2026-11-20
run() { # backend
  local b=$1 step args s0 s1 wall user sys rss
  for step in sync import-calls check export; do
    case $step in
      sync) args=(sync --from $from --to $to --what statement) ;;
      import-calls) args=(import-calls "$calls") ;;
      check) args=(check --from $from --to $to) ;;
      export) args=(export --from $from --to $to --out "out-$b" --format both) ;;
    esac
    s0=$(servercpu)
    /usr/bin/time -f '%e %U %S %M' -o "$b.time" "$dir/reconcile" "${args[@]}" >"$b.out" 2>"$b.err" ||
      { tail -3 "$b.err" >&2; exit 1; }
    s1=$(servercpu)
    read -r wall user sys rss <"$b.time"
    printf '%-8s %-12s wall %7.2f s  client %7.2f s  server %7.2f s  peak RSS %4d MiB\n' "$b" "$step" "$wall" \
      "$(echo "$user + $sys" | bc)" "$(echo "scale=2; ($s1 - $s0) / $hz" | bc)" $((rss / 1024))
  done
}
SVC_DB=$dir/month.db run sqlite
SVC_DB=$SVCRECON_TEST_POSTGRES run postgres
