package store

import (
	"context"
	"path/filepath"
	"testing"
)

// openTest opens a fresh database in a temporary directory.
func openTest(tb testing.TB) *DB {
	tb.Helper()
	db, err := Open(context.Background(), filepath.Join(tb.TempDir(), "t.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
