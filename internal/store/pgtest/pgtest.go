// Package pgtest gives tests a PostgreSQL database of their own on the
// server named by SVCRECON_TEST_POSTGRES (scripts/pg-test.sh and .ci/run
// start one and set it). Without it a test is skipped with a note saying
// how to run it, or fails under CI=true, where the server must be there.
package pgtest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// Env is the variable that names the test server's URL.
const Env = "SVCRECON_TEST_POSTGRES"

// URL returns the test server's URL, or skips (fails under CI=true).
func URL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(Env)
	if u == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal(Env + " is not set: .ci/run must start PostgreSQL (scripts/pg-test.sh)")
		}
		tb.Skip("PostgreSQL tests skipped: run them with scripts/pg-test.sh go test ./...")
	}
	return u
}

// NewDatabase creates an empty database on the test server and returns its
// URL; it is dropped when the test ends.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	admin := URL(tb)
	b := make([]byte, 6)
	rand.Read(b)
	name := "svcrecon_test_" + hex.EncodeToString(b)
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("pgx", admin)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE DATABASE ` + name); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if db, err := sql.Open("pgx", admin); err == nil {
			db.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
			db.Close()
		}
	})
	u.Path = "/" + name
	return u.String()
}
