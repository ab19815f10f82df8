package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// TestDatabaseFailureSaysItIsTheDatabase: a PostgreSQL server that goes
// away in the middle of an import or a sync is named as what failed
// (host:port/database), not the call log (which an "unexpected EOF" used
// to blame), and the sync's line does not read as a sync done.
func TestDatabaseFailureSaysItIsTheDatabase(t *testing.T) {
	srv, err := sandbox.Start(sandbox.Options{Seed: 2, Days: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	clitest.Setenv(t, clitest.SandboxEnv(srv))
	from, to := srv.Period()
	log := filepath.Join(t.TempDir(), "calls.jsonl")
	var calls bytes.Buffer
	if err := srv.WriteCallLog(&calls); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, calls.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, trigger string
		args          []string
	}{
		{"import-calls", `copy "calls"`, []string{"import-calls", "--db", "DB", log}},
		{"sync", `copy "records"`, []string{"sync", "--db", "DB", "--from", from.Format("2006-01-02"), "--to", to.Format("2006-01-02")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := pgtest.NewDatabase(t)
			db, err := store.Open(context.Background(), dsn) // migrated before the cut
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			proxied, gone := pgtest.CutOff(t, dsn, []byte(tc.trigger))
			u, _ := url.Parse(proxied)
			where := "database " + u.Host + u.Path + " failed: "
			var stdout, stderr bytes.Buffer
			args := append([]string(nil), tc.args...)
			args[2] = proxied
			code := cli.Exit(run(context.Background(), args, &stdout, &stderr), &stderr)
			last := stderr.String()[strings.LastIndex(strings.TrimSuffix(stderr.String(), "\n"), "\n")+1:]
			if !gone() || code != cli.ExitFailure || !strings.HasPrefix(last, "error: ") || !strings.Contains(last, where) {
				t.Fatalf("%s with the database gone: exit %d, last line %q; want 1 and an error naming the %s…\n%s%s",
					tc.name, code, last, where, stdout.String(), stderr.String())
			}
			if tc.name == "sync" {
				if line := stdout.String(); !strings.Contains(line, ": NOT FINISHED, "+where+"records: ") {
					t.Errorf("sync's line = %q, want it NOT FINISHED, naming the database", line)
				}
				if strings.Contains(stderr.String(), `msg="sync finished"`) {
					t.Errorf("the log says the sync finished:\n%s", stderr.String())
				}
			}
		})
	}
}
