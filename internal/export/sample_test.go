package export

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestWriteSample writes a month-long sample workbook to $EXPORT_SAMPLE_DIR
// for looking at it with a spreadsheet program (skipped without it):
//
//	EXPORT_SAMPLE_DIR=/tmp/sample go test ./internal/export -run WriteSample
func TestWriteSample(t *testing.T) {
	dir := os.Getenv("EXPORT_SAMPLE_DIR")
	if dir == "" {
		t.Skip("EXPORT_SAMPLE_DIR not set")
	}
	db := fixtureDB(t)
	ctx := context.Background()
	from := time.Date(2026, 10, 22, 0, 0, 0, 0, recon.IST)
	to := time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)
	err := db.Write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, benchInsert)
		if err != nil {
			return err
		}
		n := 0
		for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
			for i := 0; i < 15+d.Day()%9; i++ {
				n++
				at := d.Add(time.Duration(8*3600+i*1500) * time.Second).Format(time.DateTime)
				mode, amt := "DR", fmt.Sprintf("%d.%02d", 10+(n*37)%990, n%100)
				if n%23 == 0 {
					mode = "CR"
				}
				if _, err := st.ExecContext(ctx, "statement", fmt.Sprintf("SVC%07d", n), at, at[:10], fmt.Sprintf("REF%06d", n),
					mode, amt, "Verification charge for PAN", fmt.Sprintf("%d.%02d", 1000000-n*40, n%100)); err != nil {
					return err
				}
				if n%3 == 0 {
					if _, err := st.ExecContext(ctx, "orders", fmt.Sprintf("ORD%07d", n), at, at[:10], fmt.Sprintf("CO%06d", n),
						"DR", amt, "Collect order", ""); err != nil {
						return err
					}
				}
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE records SET txn_charged_value = '1234.56' WHERE svc_order_id = 'S4'`); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE recon_runs SET period_from = '2026-10-22', period_to = '2026-11-20', as_of = '2026-11-20' WHERE id = 2`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Reconciliation(ctx, db, Options{From: from, To: to, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(files.Paths())
}
