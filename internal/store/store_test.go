package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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
	var page int
	if err := db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&page); err != nil || page != PageSize {
		t.Fatalf("page_size = %d, %v; want %d", page, err, PageSize)
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

// TestOlderFileKeepsItsPageSize opens a file made with SQLite's 4 KiB
// pages: it keeps them, and works.
func TestOlderFileKeepsItsPageSize(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA page_size=4096", "PRAGMA journal_mode=WAL", "CREATE TABLE x (a)", "DROP TABLE x"} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	raw.Close()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var page int
	if err := db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&page); err != nil || page != 4096 {
		t.Fatalf("page_size = %d, %v; want the file's 4096", page, err)
	}
	if ms, err := db.Migrations(ctx); err != nil || len(ms) == 0 {
		t.Fatalf("Migrations() = %v, %v; want the migrations applied", ms, err)
	}
}

func TestWriteRollsBackOnError(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		boom := errors.New("boom")
		err := db.Write(ctx, func(tx *sql.Tx) error {
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
	})
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

// TestConcurrentOpenFromProcesses opens one new file from several processes
// at once (this test binary, re-run as children): every one must succeed.
func TestConcurrentOpenFromProcesses(t *testing.T) {
	if path := os.Getenv("STORE_TEST_OPEN_CHILD"); path != "" {
		db, err := Open(context.Background(), path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		db.Close()
		os.Exit(0)
	}
	for round := range 5 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("p%d.db", round))
		cmds := make([]*exec.Cmd, 4)
		for i := range cmds {
			cmds[i] = exec.Command(os.Args[0], "-test.run=^TestConcurrentOpenFromProcesses$")
			cmds[i].Env = append(os.Environ(), "STORE_TEST_OPEN_CHILD="+path)
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				out, _ := os.ReadFile(path)
				t.Fatalf("round %d: child %d: %v (db %d bytes)", round, i, err, len(out))
			}
		}
	}
}

func TestNewFileIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), `CREATE TABLE x(a)`); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
}

func TestForeignDatabaseIsRefusedBeforeAnyWrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "other.db")
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.ExecContext(ctx, `CREATE TABLE invoices (id INTEGER PRIMARY KEY, total TEXT)`); err != nil {
		t.Fatal(err)
	}
	other.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, path); !errors.Is(err, ErrForeign) {
		t.Fatalf("Open(foreign) = %v, want ErrForeign", err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("Open(foreign) changed the file")
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("Open(foreign) left a -wal file (switched to WAL)")
	}
}
