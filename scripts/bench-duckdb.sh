#!/usr/bin/env bash
# bench-duckdb.sh [--records N] [--dir DIR] [--nightly] [--keep] [--no-duckdb] [--cold]
#
# Times svcrecon's import-calls and check of a sandbox month beside DuckDB
# doing the core of the same work on the same files (bench/duckdb), in the
# same run on the same machine (docs/benchmarks.md). The sandbox's world of
# N statement records (default 1000000) over 30 days ending 2026-11-20:
# DIR (default ./bench-month-N) keeps its call log (calls.jsonl, or
# calls-NN.jsonl when it is split: a call-log file holds at most 4 GiB) and
# its synced statement (synced.db) for the next run; they are made when
# missing (svcsandbox, then reconcile sync: minutes at 1M, over an hour at
# 10M). Each step runs as its own process under /usr/bin/time: wall time,
# CPU (user + sys) and peak RSS, with the load average before it, since the
# machine may be shared.
#
# svcrecon works on a copy of synced.db: import-calls, then check. DuckDB
# (bench-duckdb) loads the statement into a DuckDB file untimed (kept as
# DIR/statement.duckdb), then times its import of calls.jsonl and its check.
# --nightly also times the nightly's other steps: a sync into a fresh
# database (the sandbox serving) and the export of both formats, and gives
# the database's size after the check. --keep keeps the database;
# --no-duckdb times svcrecon alone (the 10M month). --cold empties the
# page cache before each timed step (as root: /proc/sys/vm/drop_caches),
# so that every step reads its files from the disk, as the 10M month's
# steps do on a machine whose memory does not hold the month: the 1M and
# 10M figures compared like for like. Each step's row also gives what it
# read from and wrote to the disk (/usr/bin/time's %I and %O).
#
# DuckDB is not installed on the machine: bench/duckdb is a Go module of its
# own (never imported by svcrecon) whose go.mod names duckdb-go, and its
# bindings bring DuckDB's static library for the platform from the Go module
# proxy (github.com/duckdb/duckdb-go-bindings/lib/linux-amd64, ~40 MB), built
# with cgo (a C++ compiler is needed: apt-get install g++).
set -euo pipefail
records=1000000 dir= nightly= keep= duck=1 cold=
while [ $# -gt 0 ]; do
  case $1 in
    --records) records=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --nightly) nightly=1; shift ;;
    --keep) keep=1; shift ;;
    --no-duckdb) duck=; shift ;;
    --cold) cold=1; shift ;;
    *) echo "usage: $0 [--records N] [--dir DIR] [--nightly] [--keep] [--no-duckdb] [--cold]" >&2; exit 2 ;;
  esac
done
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mkdir -p "${dir:-bench-month-$records}" && cd "${dir:-bench-month-$records}" && pwd)
from=2026-10-22 to=2026-11-20 end=2026-11-20
bin=$dir/bin
mkdir -p "$bin"
echo "building svcrecon and bench-duckdb into $bin" >&2
(cd "$repo" && go build -o "$bin/" ./cmd/reconcile ./cmd/svcsandbox)
[ -z "$duck" ] || (cd "$repo/bench/duckdb" && CGO_ENABLED=1 go build -o "$bin/bench-duckdb" .)

sandbox_pid=
stop_sandbox() { [ -z "$sandbox_pid" ] || { kill "$sandbox_pid" 2>/dev/null; wait "$sandbox_pid" 2>/dev/null || true; sandbox_pid=; }; }
trap stop_sandbox EXIT
# start_sandbox serves the world (writing its call log when missing) and
# sources its settings.
start_sandbox() {
  local calls=()
  compgen -G "$dir/calls*.jsonl" >/dev/null || calls=(--calls "$dir/calls.jsonl.tmp")
  rm -f "$dir/sb.env"
  "$bin/svcsandbox" --total-records "$records" --end "$end" --addr 127.0.0.1:0 "${calls[@]}" \
    >"$dir/sb.env" 2>"$dir/sb.err" &
  sandbox_pid=$!
  until grep -q '^export' "$dir/sb.env" 2>/dev/null; do
    kill -0 "$sandbox_pid" 2>/dev/null || { cat "$dir/sb.err" >&2; exit 1; }
    sleep 1
  done
  if [ ${#calls[@]} -gt 0 ]; then
    mv "$dir/calls.jsonl.tmp" "$dir/calls.jsonl"
    if [ "$(stat -c %s "$dir/calls.jsonl")" -gt $((4 << 30)) ]; then # the import's budget: split it
      (cd "$dir" && split -n l/$(($(stat -c %s calls.jsonl) / (3 << 30) + 1)) -d --additional-suffix=.jsonl calls.jsonl calls- && rm calls.jsonl)
    fi
  fi
  # shellcheck disable=SC1091
  . "$dir/sb.env"
}

# timed NAME CMD...: runs CMD under /usr/bin/time and prints a row of the
# table: wall, CPU, peak RSS, load average before.
timed() {
  local name=$1; shift
  if [ -n "$cold" ]; then
    sync && echo 3 >/proc/sys/vm/drop_caches || { echo "--cold: cannot drop the page cache (not root?)" >&2; exit 1; }
  fi
  local load; load=$(cut -d' ' -f1-3 /proc/loadavg)
  /usr/bin/time -f '%e %U %S %M %I %O' -o "$dir/$name.time" "$@" >"$dir/$name.out" 2>"$dir/$name.err" ||
    { echo "$name failed:" >&2; tail -5 "$dir/$name.err" >&2; exit 1; }
  read -r wall user sys rss in out <"$dir/$name.time"
  printf '%-14s wall %7.2f s  cpu %7.2f s (sys %6.2f)  peak RSS %5d MiB  disk read %6d MiB written %6d MiB  load %s\n' \
    "$name" "$wall" "$(echo "$user + $sys" | bc)" "$sys" $((rss / 1024)) $((in / 2048)) $((out / 2048)) "$load"
}

if [ ! -s "$dir/synced.db" ] || ! compgen -G "$dir/calls*.jsonl" >/dev/null; then
  echo "making the world: the sandbox's call log and the synced statement (untimed)" >&2
  start_sandbox
  rm -f "$dir/synced.db"*
  SVC_DB=$dir/synced.db "$bin/reconcile" sync --from $from --to $to --what statement --log-level warn >&2
  stop_sandbox
fi

db=$dir/work.db
rm -f "$db" "$db-wal" "$db-shm"
logs=("$dir"/calls*.jsonl)
echo "svcrecon, $(nproc) CPUs, $records records, $(du -ch "${logs[@]}" | tail -1 | cut -f1) of call log in ${#logs[@]} files; $(date -u +%FT%TZ)"
if [ -n "$nightly" ]; then
  start_sandbox
  SVC_DB=$db timed sync "$bin/reconcile" sync --from $from --to $to --what statement
  stop_sandbox
else
  cp "$dir/synced.db" "$db"
  sync
fi
export SVC_DB=$db
timed import-calls "$bin/reconcile" import-calls "${logs[@]}"
sync # the copy's writes flushed, not paid by the check's commit
timed check "$bin/reconcile" check --from $from --to $to
if [ -n "$nightly" ]; then
  rm -rf "$dir/out"
  timed export "$bin/reconcile" export --from $from --to $to --out "$dir/out" --format both
  echo "database after the check: $(stat -c %s "$db") bytes"
fi
grep -h 'imported\|Verdict' "$dir/import-calls.out" "$dir/check.out" || true

if [ -n "$duck" ]; then
  echo "DuckDB (bench/duckdb), the same files:"
  timed duckdb "$bin/bench-duckdb" --sqlite "$dir/synced.db" --base "$dir/statement.duckdb" \
    --calls "$dir/calls*.jsonl" --from $from --to $to --dir "$dir"
  grep -v '^  ' "$dir/duckdb.out"
fi
[ -n "$keep" ] || rm -f "$db" "$db-wal" "$db-shm"
