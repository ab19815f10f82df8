package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

func TestOpenMigratesOnceAndSetsPragmas(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d, %v; want 1", fk, err)
	}
	first, err := db.Migrations(ctx)
	if err != nil || len(first) == 0 {
		t.Fatalf("Migrations() = %v, %v; want at least one", first, err)
	}
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	again, _ := db.Migrations(ctx)
	if len(again) != len(first) {
		t.Fatalf("reopen applied migrations again: %v then %v", first, again)
	}
}

func TestWriteRollsBackOnError(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	boom := errors.New("boom")
	err = db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO leases(name, holder, acquired_at, expires_at) VALUES ('a','b','c','d')`); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write() = %v, want boom", err)
	}
	var n int
	db.QueryRowContext(ctx, `SELECT count(*) FROM leases`).Scan(&n)
	if n != 0 {
		t.Fatalf("rows after rollback = %d, want 0", n)
	}
}

// Two processes (here: two handles) opening and migrating one new file at
// the same moment — the daemon and a cron entry — must both succeed.
func TestConcurrentOpenOfANewFile(t *testing.T) {
	ctx := context.Background()
	for round := range 10 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("c%d.db", round))
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				db, err := Open(ctx, path)
				if err == nil {
					err = db.Close()
				}
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: Open() = %v, want every opener to succeed", round, err)
			}
		}
	}
}
