package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// TestLineHashesUpgradedToBytes: a database whose calls' line hashes are
// 64 hex digits, as svcrecon stored them before migration 0150, is
// upgraded by the next command: its hashes are then 32 bytes, importing
// the same call-log file and the same standard input again adds nothing
// (imported 0, all already imported), and the next check's manifest digests
// the calls kept in the database as the one before did, the digest of
// their lines' SHA-256 in hex (by time, then hash).
func TestLineHashesUpgradedToBytes(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "t.db")
			if backend == "postgres" {
				db = pgtest.NewDatabase(t)
			}
			file := filepath.Join(dir, "calls.jsonl")
			os.WriteFile(file, []byte(strings.Join(envelopeLines(12), "\n")+"\n"), 0o600)
			var stdin []string
			var hashes []string // of the lines kept in the database: standard input's, all of one second
			for i := range 16 {
				l := fmt.Sprintf(`{"statuscode":"TXN","status":"ok","timestamp":"2026-11-21 12:00:00","orderid":"K%d","data":{"externalRef":"K%d"}}`, i, i)
				stdin = append(stdin, l)
				sum := sha256.Sum256([]byte(l))
				hashes = append(hashes, hex.EncodeToString(sum[:]))
			}
			slices.Sort(hashes)
			want := sha256.Sum256([]byte(strings.Join(hashes, "\n") + "\n"))

			importBoth(t, db, file, stdin, "12 imported, 0 already imported", "16 imported, 0 already imported")
			before := keptInput(t, db)
			if before.SHA256 != hex.EncodeToString(want[:]) || before.Lines != 16 {
				t.Fatalf("manifest input of the kept calls = %+v; want %d lines, sha256 %x", before, 16, want)
			}
			toHexHashes(t, db)
			importBoth(t, db, file, stdin, "0 imported, 12 already imported", "0 imported, 16 already imported")
			q := `SELECT count(*) FROM calls WHERE typeof(line_hash) = 'blob' AND length(line_hash) = 32`
			if backend == "postgres" {
				q = `SELECT count(*) FROM calls WHERE octet_length(line_hash) = 32`
			}
			if n := queryStrings(t, db, q); len(n) != 1 || n[0] != "28" {
				t.Errorf("calls whose line hash is 32 bytes after the upgrade: %v, want 28", n)
			}
			if after := keptInput(t, db); after != before {
				t.Errorf("manifest input of the kept calls after the upgrade = %+v; was %+v", after, before)
			}
		})
	}
}

// importBoth imports file and the lines stdin into db, and checks their
// summaries.
func importBoth(t *testing.T, db, file string, stdin []string, fileSays, stdinSays string) {
	t.Helper()
	for _, in := range []struct{ arg, input, says string }{{file, "", fileSays}, {"-", strings.Join(stdin, "\n") + "\n", stdinSays}} {
		var out, errOut strings.Builder
		if _, err := importCalls(context.Background(), []string{"--db", db, "--log-level", "warn", in.arg},
			strings.NewReader(in.input), &out, &errOut); err != nil || !strings.Contains(out.String(), in.says) {
			t.Fatalf("import-calls %s = %v; stdout %q, want %q (%s)", in.arg, err, out.String(), in.says, errOut.String())
		}
	}
}

// keptInput runs a check of 2026-11-21 on db and returns its manifest's
// input of the calls kept in the database (standard input's, "-").
func keptInput(t *testing.T, db string) evidence.Input {
	t.Helper()
	if stdout, stderr, err := runCmd(t, "check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21"); err != nil {
		t.Fatalf("check = %v\n%s\n%s", err, stdout, stderr)
	}
	s, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all, err := s.Manifests(context.Background())
	if err != nil || len(all) == 0 {
		t.Fatalf("manifests = %d, %v", len(all), err)
	}
	m, err := evidence.ParseManifest(all[len(all)-1].JSON)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(m.Inputs, func(in evidence.Input) bool { return in.Kind == evidence.InputCallLog && in.Name == "-" })
	if i < 0 {
		t.Fatalf("the manifest has no input of the calls kept in the database: %+v", m.Inputs)
	}
	return m.Inputs[i]
}

// toHexHashes turns db back into what svcrecon left before migration
// 0150: each line hash 64 hex digits, 0150 not applied.
func toHexHashes(t *testing.T, db string) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stmts := []string{`UPDATE calls SET line_hash = lower(hex(line_hash))`}
	if !strings.HasSuffix(db, ".db") {
		stmts = []string{`ALTER TABLE calls ALTER COLUMN line_hash TYPE text COLLATE "C" USING encode(line_hash, 'hex')`}
	}
	stmts = append(stmts, `DELETE FROM schema_migrations WHERE name = '0150_line_hash_bytes.sql'`)
	for _, q := range stmts {
		if _, err := s.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
