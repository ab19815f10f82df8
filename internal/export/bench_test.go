package export

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// benchInsert inserts one record: kind, svc_order_id, txn_date_time,
// txn_date, client_order_id, txn_mode, txn_charged_value, narration_value0,
// closing_balance.
const benchInsert = `INSERT INTO records (kind, account, svc_order_id, txn_date_time, txn_date, status,
	client_order_id, transaction_id, product_code, product_name, txn_mode, txn_charged_value, order_value,
	convenience_fee, txn_surcharge, txn_cashback, txn_tds, narration_value0, response_code, response_msg,
	closing_balance, first_synced_at, last_synced_at)
	VALUES (?1, '0409000123456', ?2, ?3, ?4, 'SUCCESS', ?5, 'T' || ?2, 'PAN', 'PAN verification', ?6, ?7, ?7,
	'0.00', '0.00', '0.00', '0.00', ?8, '00', 'Success', ?9, '2026-11-21T01:00:00.000Z', '2026-11-21T01:00:00.000Z')`

const benchStamp = "2026-11-21T01:00:00.000Z"

var benchStart = time.Date(2026, 11, 1, 0, 0, 0, 0, recon.IST)

// benchRecord is record i of the benchmark statement: 30 days, ~33,000 a day.
func benchRecord(i, n int) (id, at, date, ref, mode, amt, narr, closing string) {
	t := benchStart.Add(time.Duration(int64(i)*(30*24*3600)/int64(n)) * time.Second)
	at = t.Format(time.DateTime)
	mode = "DR"
	if i%50 == 0 {
		mode = "CR"
	}
	return fmt.Sprintf("SVC%09d", i), at, at[:10], fmt.Sprintf("REF%09d", i), mode,
		fmt.Sprintf("%d.%02d", 1+(i*37)%9999, i%100), "PAN verification charge " + strconv.Itoa(i%1000),
		fmt.Sprintf("%d.%02d", 50000000-i*3, i%100)
}

// benchRow is the Statement sheet row of record i (as the export writes it).
func benchRow(i, n int, row []string) {
	id, at, date, ref, mode, amt, narr, closing := benchRecord(i, n)
	copy(row, []string{"0409000123456", at, date, id, ref, "SUCCESS", "T" + id, "PAN", "PAN verification", "", "",
		mode, amt, amt, "0.00", "0.00", "0.00", "0.00", narr, "", "", "", "", "", "", "", "", "",
		"00", "Success", "", closing, benchStamp, benchStamp, "0"})
}

func benchRows(b *testing.B) int {
	n := 1_000_000
	if s := os.Getenv("EXPORT_BENCH_ROWS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatalf("EXPORT_BENCH_ROWS: %v", err)
		}
	}
	return n
}

// benchDB builds a database with n statement records and a current run of
// 2026-11-01..2026-11-30.
func benchDB(b *testing.B, dir string, n int) *store.DB {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	const batch = 50_000
	for lo := 0; lo < n; lo += batch {
		err := db.Write(ctx, func(tx *sql.Tx) error {
			st, err := tx.PrepareContext(ctx, benchInsert)
			if err != nil {
				return err
			}
			defer st.Close()
			for i := lo; i < min(lo+batch, n); i++ {
				id, at, date, ref, mode, amt, narr, closing := benchRecord(i, n)
				if _, err := st.ExecContext(ctx, "statement", id, at, date, ref, mode, amt, narr, closing); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	_, err = db.ExecContext(ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, finished_at, state, summary)
		VALUES ('2026-11-01', '2026-11-30', '2026-11-30', ?1, ?1, 'ok', '{}')`, benchStamp)
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// peak measures the peak resident set (VmHWM, reset first) and the peak Go
// heap (sampled every 20 ms) while fn runs, and reports them.
func peak(b *testing.B, fn func()) {
	debug.FreeOSMemory()                                  // so that the resident set starts from the live heap
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset VmHWM (Linux); best effort
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var maxHeap uint64
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			mu.Lock()
			maxHeap = max(maxHeap, sample[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	fn()
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	close(stop)
	<-done
	cpu := time.Duration(r1.Utime.Nano()+r1.Stime.Nano()-r0.Utime.Nano()-r0.Stime.Nano()) * time.Nanosecond
	b.ReportMetric(cpu.Seconds(), "cpu-s")
	b.ReportMetric(float64(maxHeap)/(1<<20), "peak-heap-MB")
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(st), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				kb, _ := strconv.ParseFloat(f[1], 64)
				b.ReportMetric(kb/1024, "peak-RSS-MB")
			}
		}
	}
}

// BenchmarkStatement exports a statement of EXPORT_BENCH_ROWS (default
// 1,000,000) records to xlsx and to csv, against the floor: a bare excelize
// StreamWriter / encoding/csv writing the same cells with no database.
//
//	go test ./internal/export -run '^$' -bench Statement -benchtime 1x -timeout 30m
func BenchmarkStatement(b *testing.B) {
	n := benchRows(b)
	dir := b.TempDir()
	start := time.Now()
	db := benchDB(b, dir, n)
	defer db.Close()
	b.Logf("inserted %d records in %v", n, time.Since(start).Round(time.Millisecond))
	from, to := benchStart, benchStart.AddDate(0, 0, 29)
	for _, f := range []Format{FormatXLSX, FormatCSV} {
		b.Run("export-"+string(f), func(b *testing.B) {
			for b.Loop() {
				out := b.TempDir()
				peak(b, func() {
					if _, err := Reconciliation(context.Background(), db, Options{From: from, To: to, Dir: out, Format: f}); err != nil {
						b.Fatal(err)
					}
				})
				reportSize(b, out)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds()*float64(b.N), "rows/s")
		})
	}
	b.Run("floor-csv-db", func(b *testing.B) {
		for b.Loop() {
			out := b.TempDir()
			peak(b, func() { floorCSVDB(b, db, filepath.Join(out, "floor")) })
			reportSize(b, out)
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds()*float64(b.N), "rows/s")
	})
	for _, fl := range []struct {
		name  string
		write func(b *testing.B, path string, n int)
	}{{"floor-xlsx", floorXLSX}, {"floor-csv", floorCSV}} {
		b.Run(fl.name, func(b *testing.B) {
			for b.Loop() {
				out := b.TempDir()
				peak(b, func() { fl.write(b, filepath.Join(out, "floor"), n) })
				reportSize(b, out)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds()*float64(b.N), "rows/s")
		})
	}
}

func reportSize(b *testing.B, dir string) {
	var total int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			total += fi.Size()
		}
		return nil
	})
	b.ReportMetric(float64(total)/(1<<20), "out-MB")
}

// floorXLSX writes the Statement sheet's cells (same values, kinds and
// number formats, one style per kind) with a bare StreamWriter.
func floorXLSX(b *testing.B, path string, n int) {
	s := recordSheet("Statement", recon.Statement, []Column{{"reversed", Bool, false}}, nil, nil)
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		b.Fatal(err)
	}
	styles := map[CellKind]int{}
	for _, c := range s.Columns {
		nf := map[CellKind]string{Amount: fmtAmount, Date: fmtDate, DateTime: fmtDateTime, Stamp: fmtDateTime}[c.Kind]
		if _, ok := styles[c.Kind]; !ok {
			st := &excelize.Style{}
			if nf != "" {
				st.CustomNumFmt = &nf
			}
			styles[c.Kind], _ = f.NewStyle(st)
		}
	}
	head := make([]any, len(s.Columns))
	for i, c := range s.Columns {
		head[i] = c.Name
	}
	if err := sw.SetRow("A1", head); err != nil {
		b.Fatal(err)
	}
	row := make([]string, len(s.Columns))
	cells := make([]excelize.Cell, len(s.Columns))
	ptrs := make([]any, len(s.Columns))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	for i := 0; i < n; i++ {
		benchRow(i, n, row)
		for j, c := range s.Columns {
			if row[j] == "" {
				cells[j] = excelize.Cell{}
				continue
			}
			cells[j] = excelize.Cell{StyleID: styles[c.Kind], Value: cellValue(c.Kind, row[j])}
		}
		if err := sw.SetRow("A"+strconv.Itoa(i+2), ptrs); err != nil {
			b.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.SaveAs(path + ".xlsx"); err != nil {
		b.Fatal(err)
	}
}

// floorCSVDB reads the same records from the database with one plain
// query (every column scanned, in the sheet's order) and writes them with
// encoding/csv: the floor of a CSV export that reads its rows from SQLite.
func floorCSVDB(b *testing.B, db *store.DB, path string) {
	w, done := csvFloorFile(b, path)
	defer done()
	rows, err := db.Query(`SELECT account, svc_order_id, ` + strings.Join(recordColumnsOf(), ", ") + `, first_synced_at, last_synced_at
		FROM records WHERE kind = 'statement' ORDER BY account, txn_date_time, svc_order_id`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	row := make([]string, 2+recon.NumFields+2)
	ptrs := make([]any, len(row))
	for i := range row {
		ptrs[i] = &row[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		if err := w.Write(row); err != nil {
			b.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
}

// csvFloorFile creates a floor's CSV file; done flushes and closes it.
func csvFloorFile(b *testing.B, path string) (*csv.Writer, func()) {
	fh, err := os.Create(path + ".csv")
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriter(fh)
	w := csv.NewWriter(bw)
	w.UseCRLF = true
	return w, func() {
		w.Flush()
		if err := errors.Join(w.Error(), bw.Flush(), fh.Close()); err != nil {
			b.Fatal(err)
		}
	}
}

func recordColumnsOf() []string {
	var cols []string
	for _, f := range recon.RecordFields {
		cols = append(cols, f.Column)
	}
	return cols
}

// floorCSV writes the same rows with encoding/csv.
func floorCSV(b *testing.B, path string, n int) {
	w, done := csvFloorFile(b, path)
	defer done()
	row := make([]string, 35)
	for i := 0; i < n; i++ {
		benchRow(i, n, row)
		if err := w.Write(row); err != nil {
			b.Fatal(err)
		}
	}
}
