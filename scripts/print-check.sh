#!/usr/bin/env bash
# print-check.sh [WORKBOOK.xlsx]: prints the workbook of `reconcile run
# --sandbox` (or WORKBOOK) to PDF with LibreOffice, one sheet at a time, and
# reports per sheet the pages, their orientation and the smallest type in
# points (the test TestWorkbookPrints in cmd/reconcile). Exit 1 when a sheet
# prints under 8 pt, off A4, in the wrong orientation, or the Summary on more
# than 3 pages. Needs LibreOffice, with Carlito for Calibri's metrics:
#   apt-get install libreoffice-calc fonts-crosextra-carlito
# Without LibreOffice the test is skipped (and says so).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
  PRINT_CHECK_WORKBOOK=$(realpath "$1")
  export PRINT_CHECK_WORKBOOK
fi
go test ./cmd/reconcile -run '^TestWorkbookPrints$' -count=1 -v |
  sed -n -E 's/^ +print_test.go:[0-9]+: //p; /^(--- |ok|FAIL|PASS)/p'
