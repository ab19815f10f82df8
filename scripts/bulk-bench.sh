#!/usr/bin/env bash
# bulk-bench.sh: whole `bulkrun run` commands at the server's pace, the
# server (svcsandbox --latency 50ms) in a process of its own, timed from
# start to exit (validation, journal, calls table, results CSV included).
#
#   scripts/bulk-bench.sh [BIN_DIR]                     # SQLite: 10,000 rows at --concurrency 32, 3 runs
#   scripts/pg-test.sh scripts/bulk-bench.sh --workers 1,2,3,4 --rows 10000 [BIN_DIR]
#                                                       # PostgreSQL: 1 to 4 bulkrun processes at --concurrency 8
#
# Options: --rows N (default 10000; 4000 with --workers), --concurrency N
# (32; 8 with --workers), --runs N (3), --workers LIST (PostgreSQL, from
# SVCRECON_TEST_POSTGRES, a fresh database each run, dropped after it),
# --latency D (50ms).
# BIN_DIR holds bulkrun and svcsandbox (default: built from this checkout).
#
# One line per run: wall time, rows/s, % of the ideal (workers × concurrency
# / latency), CPU per row of bulkrun (all its processes, user+sys), of the
# server, and of PostgreSQL (its postmaster's children, reaped or not), and
# the load average before and after. The summary is the median of the runs.
set -euo pipefail

rows="" conc="" runs=3 workers="" latency=50ms bin=""
while [ $# -gt 0 ]; do
  case $1 in
    --rows) rows=$2; shift 2 ;;
    --concurrency) conc=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --latency) latency=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) bin=$1; shift ;;
  esac
done
pg=""
if [ -n "$workers" ]; then
  pg=1
  : "${SVCRECON_TEST_POSTGRES:?--workers needs PostgreSQL: run under scripts/pg-test.sh}"
  rows=${rows:-4000} conc=${conc:-8}
else
  workers=1 rows=${rows:-10000} conc=${conc:-32}
fi

work=$(mktemp -d /tmp/bulk-bench.XXXXXX)
sandbox_pid=""
cleanup() {
  [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null && wait "$sandbox_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "$bin" ]; then
  bin=$work/bin
  go build -o "$bin/" ./cmd/bulkrun ./cmd/svcsandbox
fi

tck=$(getconf CLK_TCK)
# cpu PID...: user+sys clock ticks of the processes, with their reaped children.
cpu() {
  local t=0 p
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] || continue
    t=$((t + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13 + $14 + $15}')))
  done
  echo $t
}
# pgpids: the PostgreSQL postmaster serving SVCRECON_TEST_POSTGRES's port and its children.
pgpids() {
  local port pm
  port=$(sed -E 's|.*:([0-9]+)/.*|\1|' <<<"$SVCRECON_TEST_POSTGRES")
  pm=$(pgrep -f -- "postgres .*-p $port( |$)" | head -n 1) || true
  [ -n "$pm" ] && echo "$pm" $(pgrep -P "$pm")
}
load() { cut -d' ' -f1 /proc/loadavg; }

# The input: one PAN a line, the externalRefs derived from the run.
python3 - "$work/pans.csv" "$rows" <<'EOF'
import sys
with open(sys.argv[1], 'w') as f:
    f.write('pan,latitude\r\n')
    for i in range(int(sys.argv[2])):
        f.write('ABCDE%04dF,012.%d\r\n' % (i % 10000, i))
EOF

port=18400
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
"$bin/svcsandbox" --addr 127.0.0.1:$port --latency "$latency" --no-defects --days 2 >"$work/sandbox.env" 2>"$work/sandbox.log" &
sandbox_pid=$!
while [ ! -s "$work/sandbox.env" ]; do
  kill -0 $sandbox_pid 2>/dev/null || { cat "$work/sandbox.log" >&2; exit 1; }
  sleep 0.1
done
. "$work/sandbox.env"

echo "bulk-bench: $rows rows, --concurrency $conc, server latency $latency, $(nproc) CPUs, $(date -u +%FT%TZ)"
printf '%-8s %4s %8s %8s %7s %10s %10s %10s %11s\n' workers run wall rows/s %ideal "bulkrun ms" "server ms" "pg ms" "load"
for n in ${workers//,/ }; do
  ideal=$(awk -v w="$n" -v c="$conc" -v l="$latency" 'BEGIN { sub(/ms$/, "", l); print w * c / (l / 1000) }')
  : >"$work/rates"
  for run in $(seq 1 "$runs"); do
    db=$work/run.db
    rm -f "$work"/run.db* "$work/pans.csv.results.csv"
    if [ -n "$pg" ]; then
      name=bench_$(date +%s%N)
      psql=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)/psql
      "$psql" -q "$SVCRECON_TEST_POSTGRES" -c "CREATE DATABASE $name" >/dev/null
      db=${SVCRECON_TEST_POSTGRES/\/postgres\?//$name?}
    fi
    l0=$(load) s0=$(cpu $sandbox_pid) p0=0
    [ -n "$pg" ] && p0=$(cpu $(pgpids))
    start=$(date +%s.%N)
    pids=()
    for w in $(seq 1 "$n"); do
      /usr/bin/time -f "%U %S" -o "$work/time.$w" "$bin/bulkrun" run --op verifyPanPlusV2 --in "$work/pans.csv" --db "$db" \
        --concurrency "$conc" --set longitude=77.59 --set consent=Y --log-level error >"$work/out.$w" 2>&1 &
      pids+=($!)
    done
    for w in $(seq 1 "$n"); do
      wait "${pids[$((w - 1))]}" || { echo "worker $w failed:" >&2; cat "$work/out.$w" >&2; exit 1; }
    done
    end=$(date +%s.%N)
    p1=0
    [ -n "$pg" ] && p1=$(cpu $(pgpids))
    s1=$(cpu $sandbox_pid) l1=$(load)
    # The run's database goes: its autovacuum would run during the next
    # run and count in that run's PostgreSQL CPU.
    [ -n "$pg" ] && "$psql" -q "$SVCRECON_TEST_POSTGRES" -c "DROP DATABASE $name WITH (FORCE)" >/dev/null
    bcpu=$(cat "$work"/time.* | awk '{t += $1 + $2} END {print t}')
    rm -f "$work"/time.*
    awk -v n="$n" -v run="$run" -v s="$start" -v e="$end" -v rows="$rows" -v ideal="$ideal" -v b="$bcpu" \
      -v sv=$((s1 - s0)) -v pg=$((p1 - p0)) -v tck="$tck" -v l0="$l0" -v l1="$l1" 'BEGIN {
        w = e - s; r = rows / w
        printf "%-8s %4d %7.2fs %8.1f %6.1f%% %10.3f %10.3f %10.3f %5s→%-5s\n", n, run, w, r, 100 * r / ideal,
          1000 * b / rows, 1000 * sv / tck / rows, 1000 * pg / tck / rows, l0, l1 }' | tee -a "$work/rates"
  done
  sort -k4 -n "$work/rates" | awk -v m=$(((runs + 1) / 2)) 'NR == m {
    printf "%-8s %4s %8s %8s %7s   (median of the runs by rows/s)\n", $1, "med", $3, $4, $5 }'
done
