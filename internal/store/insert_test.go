package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// blockCalls returns the calls of lines from..to-1 of standard input, each
// kept in the block of its ten lines (blocks, made as needed).
func blockCalls(from, to int, blocks map[int]*recon.LineBlock) []recon.Call {
	var calls []recon.Call
	for line := from; line < to; line++ {
		b := blocks[line/10]
		if b == nil {
			b = &recon.LineBlock{Data: []byte(fmt.Sprint("block ", line/10))}
			blocks[line/10] = b
		}
		calls = append(calls, recon.Call{Hash: testHash(fmt.Sprintf("h%03d", line)), Source: "-", Line: line,
			TS: fmt.Sprintf("2026-11-21 10:%02d:%02d", line/60, line%60), Operation: "op", Outcome: recon.CallSuccess,
			Block: b, Offset: int64(line%10) * 100, Length: 99})
	}
	return calls
}

// TestInsertCallsInOrder: calls are stored in the order given, each line
// once (one given twice in a batch, or again later, is skipped), with the
// same rows on both backends whether a batch is all new, partly stored or
// all stored; a block is kept exactly when one of its lines was inserted.
func TestInsertCallsInOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		at := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)
		first := blockCalls(0, 40, map[int]*recon.LineBlock{})
		first = append(first[:6], first[5:]...) // line 5 twice
		for i, step := range []struct {
			calls []recon.Call
			want  int
		}{
			{first, 40},
			{blockCalls(30, 50, map[int]*recon.LineBlock{}), 10}, // block 3 holds only stored lines
			{blockCalls(30, 50, map[int]*recon.LineBlock{}), 0},
		} {
			if n, err := db.InsertCalls(ctx, at, step.calls, nil); err != nil || n != step.want {
				t.Fatalf("InsertCalls #%d = %d, %v; want %d", i+1, n, err, step.want)
			}
		}
		var lines []int
		var blocks []string
		var line int
		var block []byte
		if err := queryEach(ctx, db, `SELECT c.source_line, b.data FROM calls c JOIN call_blocks b ON b.id = c.line_block ORDER BY c.id`,
			[]any{&line, &block}, func() error {
				lines = append(lines, line)
				if len(blocks) == 0 || blocks[len(blocks)-1] != string(block) {
					blocks = append(blocks, string(block))
				}
				return nil
			}); err != nil {
			t.Fatal(err)
		}
		want := make([]int, 50)
		for i := range want {
			want[i] = i
		}
		if !slices.Equal(lines, want) {
			t.Errorf("lines in the order stored: %v, want 0..49", lines)
		}
		if w := []string{"block 0", "block 1", "block 2", "block 3", "block 4"}; !slices.Equal(blocks, w) {
			t.Errorf("blocks of the calls: %q, want %q", blocks, w)
		}
		var nblocks int
		if err := db.QueryRow(`SELECT count(*) FROM call_blocks`).Scan(&nblocks); err != nil || nblocks != 5 {
			t.Errorf("call_blocks holds %d blocks, %v; want 5 (those of lines stored only before are dropped)", nblocks, err)
		}
	})
}

// TestWriteRecordsPagesOfStored: many pages written at once (each the
// last of its day, counted after its records are stored), each holding a
// record stored before and changed and new ones: each page's new records
// are inserted and the other updated, past the savepoints one PostgreSQL
// transaction takes.
func TestWriteRecordsPagesOfStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		at := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
		const pages = 2*maxCopySavepoints + 3
		var old []recon.Record
		for i := range pages {
			old = append(old, testRecord(fmt.Sprintf("A%02d", i), "2026-11-21 10:00:00", "1.00"))
		}
		if n, _, err := db.WriteRecords(ctx, at, []RecordPage{{Records: old}}); err != nil || n != pages {
			t.Fatalf("WriteRecords = %d, %v; want %d new", n, err, pages)
		}
		var ps []RecordPage
		for i := range pages {
			w := &SyncWindow{Kind: recon.Statement, Account: "A1", Day: "2026-11-21", State: "walking", NextPage: i + 1}
			recs := []recon.Record{testRecord(fmt.Sprintf("A%02d", i), "2026-11-21 10:00:00", "2.00")}
			for j := range pgCopyMin {
				recs = append(recs, testRecord(fmt.Sprintf("B%02d-%02d", i, j), "2026-11-21 11:00:00", "3.00"))
			}
			ps = append(ps, RecordPage{Window: w, Finish: func(int64, *SyncWindow) {}, Records: recs})
		}
		newN, updN, err := db.WriteRecords(ctx, at.Add(time.Hour), ps)
		if err != nil || newN != pages*pgCopyMin || updN != pages {
			t.Fatalf("WriteRecords = %d new, %d updated, %v; want %d, %d", newN, updN, err, pages*pgCopyMin, pages)
		}
		var got []string
		var id, amount string
		if err := queryEach(ctx, db, `SELECT svc_order_id, txn_charged_value FROM records ORDER BY id`, []any{&id, &amount},
			func() error { got = append(got, id+" "+amount); return nil }); err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := range pages {
			want = append(want, fmt.Sprintf("A%02d 2.00", i))
		}
		for i := range pages {
			for j := range pgCopyMin {
				want = append(want, fmt.Sprintf("B%02d-%02d 3.00", i, j))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("records in the order stored:\n%q\nwant\n%q", got, want)
		}
	})
}

// TestInsertReportCallsRelaxesItsOwnCommit: InsertReportCalls stores its
// calls as InsertCalls does, and on PostgreSQL its transaction, alone,
// commits with synchronous_commit off (the session's own setting, read in the
// next transaction on the same single connection, is back).
func TestInsertReportCallsRelaxesItsOwnCommit(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		db.SetMaxOpenConns(1) // the next transaction sees the same session
		at := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)
		if n, err := db.InsertReportCalls(ctx, at, blockCalls(0, 12, map[int]*recon.LineBlock{}), nil); err != nil || n != 12 {
			t.Fatalf("InsertReportCalls = %d, %v; want 12 new", n, err)
		}
		if n, err := db.InsertReportCalls(ctx, at, blockCalls(6, 14, map[int]*recon.LineBlock{}), nil); err != nil || n != 2 {
			t.Fatalf("InsertReportCalls again = %d, %v; want 2 new (lines 12 and 13)", n, err)
		}
		if _, pg := db.dialect.(postgresDialect); !pg { // SQLite: nothing to relax
			return
		}
		var inside, after string
		err := db.Write(ctx, func(tx *sql.Tx) error {
			if err := db.dialect.relaxCommit(ctx, tx); err != nil {
				return err
			}
			return tx.QueryRowContext(ctx, `SELECT current_setting('synchronous_commit')`).Scan(&inside)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, `SELECT current_setting('synchronous_commit')`).Scan(&after); err != nil {
			t.Fatal(err)
		}
		if inside != "off" || after == "off" {
			t.Errorf("synchronous_commit inside a relaxed transaction %q, after it %q; want off, then the session's own (not off)", inside, after)
		}
	})
}
