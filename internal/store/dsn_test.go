package store

import (
	"path/filepath"
	"testing"
)

func TestMissing(t *testing.T) {
	db := openTest(t) // exists
	gone := filepath.Join(t.TempDir(), "none.db")
	for dsn, want := range map[string]bool{
		db.Path: false,
		gone:    true,
		"postgres://svc@127.0.0.1:1/none?sslmode=disable": false,
	} {
		if got := Missing(dsn); got != want {
			t.Errorf("Missing(%s) = %v, want %v", dsn, got, want)
		}
	}
}
