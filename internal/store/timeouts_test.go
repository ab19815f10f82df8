package store

import (
	"context"
	"database/sql"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// silentServer accepts connections and never answers, as a server whose
// PostgreSQL hangs (or a firewall that swallows) does. It returns its
// host:port.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, never read
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// openOrHang is Open that fails the test if it has not returned after a
// minute (a hang, not a slow answer).
func openOrHang(t *testing.T, dsn string) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		db, err := Open(context.Background(), dsn)
		if err == nil {
			db.Close()
		}
		errc <- err
	}()
	select {
	case err := <-errc:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("Open(%s) still waiting after a minute", RedactDSN(dsn))
		return nil
	}
}

// TestPostgresConnectTimeout: a server that accepts and never answers is
// given up after the connect time-out (connect_timeout= in the URL; 10 s
// when the URL and PGCONNECT_TIMEOUT say nothing), in one line naming the
// server and saying what happened, never the password.
func TestPostgresConnectTimeout(t *testing.T) {
	t.Setenv("PGCONNECT_TIMEOUT", "")
	addr := silentServer(t)
	for _, mode := range []string{"disable", "prefer"} {
		err := openOrHang(t, "postgres://svc:s3cretpw@"+addr+"/svcrecon?sslmode="+mode+"&connect_timeout=1")
		if err == nil {
			t.Fatal("Open of a silent server worked")
		}
		msg := err.Error()
		for _, want := range []string{"open database " + addr + "/svcrecon: ", "no answer within the connect timeout of 1s", "connect_timeout="} {
			if !strings.Contains(msg, want) {
				t.Errorf("sslmode=%s: Open = %q, want it to say %q", mode, msg, want)
			}
		}
		if strings.Contains(msg, "s3cretpw") || strings.Contains(msg, "\n") {
			t.Errorf("Open = %q, want one line without the password", msg)
		}
	}
	for dsn, want := range map[string]time.Duration{
		"postgres://svc@db.internal/svcrecon":                        DefaultConnectTimeout,
		"postgres://svc@db.internal/svcrecon?connect_timeout=3":      3 * time.Second,
		"postgres://svc@db.internal/svcrecon?connect_timeout=0":      0,
		"postgresql://svc@db.internal:5433/svcrecon?sslmode=require": DefaultConnectTimeout,
	} {
		cfg, _, err := pgConfig(dsn)
		if err != nil || cfg.ConnectTimeout != want {
			t.Errorf("pgConfig(%s).ConnectTimeout = %v (%v), want %v", dsn, cfg.ConnectTimeout, err, want)
		}
	}
	t.Setenv("PGCONNECT_TIMEOUT", "4")
	if cfg, _, _ := pgConfig("postgres://svc@db.internal/svcrecon"); cfg.ConnectTimeout != 4*time.Second {
		t.Errorf("with PGCONNECT_TIMEOUT=4: ConnectTimeout = %v, want 4s", cfg.ConnectTimeout)
	}
}

// TestPostgresStatementAndLockTimeouts: svcrecon's connections get a
// statement and a lock time-out, unless the URL (a parameter, or
// options=-c …) or the role's settings give theirs; a lock held by
// another session is waited for no longer than the lock time-out, and the
// error says so.
func TestPostgresStatementAndLockTimeouts(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	show := func(db *DB) (stmt, lock string) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT current_setting('statement_timeout'), current_setting('lock_timeout')`).Scan(&stmt, &lock); err != nil {
			t.Fatal(err)
		}
		return stmt, lock
	}
	for _, tc := range []struct {
		params     []string
		stmt, lock string
	}{
		{nil, "30min", "1min"},
		{[]string{"statement_timeout", "2h", "lock_timeout", "5s"}, "2h", "5s"},
		{[]string{"options", "-c statement_timeout=45min"}, "45min", "1min"},
		{[]string{"lock_timeout", "0"}, "30min", "0"},
	} {
		db := openURL(t, withParams(t, dsn, tc.params...))
		if stmt, lock := show(db); stmt != tc.stmt || lock != tc.lock {
			t.Errorf("URL …%s: statement_timeout %s, lock_timeout %s; want %s, %s", tc.params, stmt, lock, tc.stmt, tc.lock)
		}
	}

	holder, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	// The database's own setting is kept (as a role's would be).
	if _, err := holder.Exec(`ALTER DATABASE ` + dsn[strings.LastIndex(dsn, "/")+1:strings.Index(dsn+"?", "?")] + ` SET lock_timeout = '7s'`); err != nil {
		t.Fatal(err)
	}
	if stmt, lock := show(openURL(t, dsn)); stmt != "30min" || lock != "7s" {
		t.Errorf("with ALTER DATABASE … SET lock_timeout = '7s': statement_timeout %s, lock_timeout %s; want 30min, 7s", stmt, lock)
	}
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`LOCK TABLE leases IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	db := openURL(t, withParams(t, dsn, "lock_timeout", "200ms"))
	_, err = db.ExecContext(ctx, `DELETE FROM leases WHERE name = 'none'`)
	if err == nil || !strings.Contains(err.Error(), "lock timeout") {
		t.Errorf("a write to a table another session locks = %v, want the lock time-out", err)
	}
}

// withParams returns dsn with the URL parameters kv (name, value …) set.
func withParams(tb testing.TB, dsn string, kv ...string) string {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20") // as a user writes a space there
	return u.String()
}
