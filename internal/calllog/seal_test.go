package calllog

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
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
