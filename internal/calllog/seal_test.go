package calllog

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// TestImportSealsTheFile checks that an import keeps, with the file it
// read, what a manifest names it by: the path as given, the SHA-256 of its
// bytes as read (what sha256sum prints: the compressed bytes of a .gz),
// its size, its non-blank lines and the span of its calls' times.
func TestImportSealsTheFile(t *testing.T) {
	content := lines(goodLine("A", "OA", ts1), "", goodLine("B", "OB", "2026-11-21 23:59:59"), goodLine("C", "OC", "2026-11-20 08:00:00"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(content))
	zw.Close()
	for name, body := range map[string][]byte{"calls.jsonl": []byte(content), "calls.jsonl.gz": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, name, string(body))
			if _, err := ImportFiles(context.Background(), db, []string{p}, Options{}); err != nil {
				t.Fatal(err)
			}
			var gotName, sha, first, last string
			var size int64
			var n int
			if err := db.QueryRow(`SELECT name, sha256, bytes, lines, first_ts, last_ts FROM call_sources`).
				Scan(&gotName, &sha, &size, &n, &first, &last); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(raw)
			if gotName != p || sha != hex.EncodeToString(sum[:]) || size != int64(len(raw)) || n != 3 {
				t.Errorf("sealed %q %s %d bytes %d lines, want %q %x %d bytes 3 lines", gotName, sha, size, n, p, sum, len(raw))
			}
			if first != "2026-11-20 08:00:00" || last != "2026-11-21 23:59:59" {
				t.Errorf("calls from %q to %q, want 2026-11-20 08:00:00 to 2026-11-21 23:59:59", first, last)
			}
		})
	}
}

// appendingWriter is a database during whose first InsertCalls another
// program appends more to the file being imported.
type appendingWriter struct {
	*store.DB
	t        *testing.T
	path     string
	more     []byte
	appended bool
}

func (w *appendingWriter) InsertCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []store.ImportError) (int, error) {
	if !w.appended {
		w.appended = true
		f, err := os.OpenFile(w.path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			w.t.Error(err)
		} else if _, err := f.Write(w.more); err != nil || f.Close() != nil {
			w.t.Error(err)
		}
	}
	return w.DB.InsertCalls(ctx, at, calls, bad)
}

// TestImportSealsWhatItRead: a line appended to a call log while its
// import commits its last batch (here its only one: the reading has ended
// by then) is not in the file's seal, which is of the bytes the import read and imported (its
// SHA-256 and size, its lines and their times): the manifests must not
// vouch for a line no run saw. Importing the file again stores the new
// line, the others being imported already, and seals the whole file.
func TestImportSealsWhatItRead(t *testing.T) {
	first := lines(goodLine("A", "OA", ts1), goodLine("B", "OB", "2026-11-21 10:00:01"))
	late := lines(goodLine("L", "OL", "2026-11-21 23:00:00"))
	var gzFirst, gzLate bytes.Buffer
	for _, c := range []struct {
		b *bytes.Buffer
		s string
	}{{&gzFirst, first}, {&gzLate, late}} {
		zw := gzip.NewWriter(c.b)
		zw.Write([]byte(c.s))
		zw.Close()
	}
	for name, parts := range map[string][2][]byte{
		"calls.jsonl":    {[]byte(first), []byte(late)},
		"calls.jsonl.gz": {gzFirst.Bytes(), gzLate.Bytes()}, // a member appended
	} {
		t.Run(name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, name, string(parts[0]))
			w := &appendingWriter{DB: db, t: t, path: p, more: parts[1]}
			if sum, err := ImportFiles(context.Background(), w, []string{p}, Options{}); err != nil || sum.Imported != 2 || !w.appended {
				t.Fatalf("import = %+v, %v; want the 2 lines there when it read the file imported", sum, err)
			}
			checkSeal(t, db, parts[0], 2, "2026-11-21 10:00:01")
			sum, err := ImportFiles(context.Background(), db, []string{p}, Options{})
			if err != nil || sum.Imported != 1 || sum.Duplicates != 2 {
				t.Fatalf("import again = %+v, %v; want the appended line imported, the 2 others already imported", sum, err)
			}
			checkSeal(t, db, append(slices.Clip(parts[0]), parts[1]...), 3, "2026-11-21 23:00:00")
		})
	}
}

// checkSeal checks the latest seal of a call-log file: of the bytes want,
// holding lines lines, its last call at last.
func checkSeal(t *testing.T, db *store.DB, want []byte, lines int, last string) {
	t.Helper()
	var sha, gotLast string
	var size int64
	var n int
	if err := db.QueryRow(`SELECT sha256, bytes, lines, last_ts FROM call_sources ORDER BY id DESC LIMIT 1`).
		Scan(&sha, &size, &n, &gotLast); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(want)
	if sha != hex.EncodeToString(sum[:]) || size != int64(len(want)) || n != lines || gotLast != last {
		t.Errorf("sealed %s, %d bytes, %d lines, last call %s; want %x, %d bytes, %d lines, last call %s",
			sha, size, n, gotLast, sum, len(want), lines, last)
	}
}
