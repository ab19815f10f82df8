#!/usr/bin/env bash
# same-exports.sh OLD_DIR NEW_DIR: runs `reconcile run --sandbox` with the
# reconcile binary of each directory (built with `go build -o DIR/ ./cmd/...`)
# on the same day and compares the CSV files they export byte for byte,
# except svcrecon's own clock readings (when the run finished, when a record
# was first and last synced: RFC 3339 times with a zone) and the run
# manifest's digest (the manifest holds when it was made), which are masked.
# Exit 0 when they are the same.
set -euo pipefail
old=$1 new=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in old new; do
  bin=${!side}
  (cd "$work" && "$bin/reconcile" run --sandbox --out "$work/$side" >"$work/$side.out" 2>"$work/$side.err") || true
done
clean() {
  sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})/<time>/g' \
    -e 's/^(evidence,manifestDigest,).*/\1<digest of a manifest that holds its own time>/' "$1"
}
status=0
for f in "$work"/old/*.csv; do
  name=$(basename "$f")
  if [ ! -e "$work/new/$name" ]; then echo "missing: $name"; status=1; continue; fi
  if ! cmp -s <(clean "$f") <(clean "$work/new/$name"); then
    echo "differs: $name"; status=1
    diff <(clean "$f") <(clean "$work/new/$name") | head -20 || true
  fi
done
for f in "$work"/new/*.csv; do
  [ -e "$work/old/$(basename "$f")" ] || { echo "new file: $(basename "$f")"; status=1; }
done
n=$(ls "$work"/old/*.csv | wc -l)
[ $status -eq 0 ] && echo "same: $n CSV files byte-identical (clock readings masked)"
exit $status
