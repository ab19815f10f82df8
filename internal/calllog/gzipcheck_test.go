package calllog

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"strings"
	"testing"
)

// storedGzip is content gzipped without compression: its lines are in
// the file as they are, where a test can damage them.
func storedGzip(t *testing.T, content string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write([]byte(content))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImportDamagedGzipStoresNothing: a .gz whose data no longer matches
// its CRC-32 (an amount changed inside it) is refused in one line naming
// the file and the checksum, and nothing of it is stored, read as a file
// or as a stream; a good copy of the log then stores the call once, with
// its true amount. (The checksum is at the end of the gzip member: an
// import that stored lines as it read them kept the wrong amount, and the
// good copy's line, of another hash, was stored beside it.)
func TestImportDamagedGzipStoresNothing(t *testing.T) {
	db := openDB(t)
	content := lines(goodLine("A", "OA", ts1))
	gz := storedGzip(t, content)
	damaged := bytes.Replace(gz, []byte(`"amount":"10.00"`), []byte(`"amount":"19.00"`), 1)
	if bytes.Equal(damaged, gz) {
		t.Fatal("the amount is not stored as it is in the gzip file")
	}
	p := writeFile(t, "calls.jsonl.gz", string(damaged))

	_, err := ImportFiles(context.Background(), db, []string{p}, Options{})
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "gzip: invalid checksum") ||
		strings.Contains(err.Error(), "\n") {
		t.Errorf("import of the damaged file = %v, want one line naming %s and the checksum", err, p)
	}
	_, err = Import(context.Background(), db, "-", bytes.NewReader(damaged), Options{})
	if err == nil || !strings.Contains(err.Error(), "import -: gzip: invalid checksum") {
		t.Errorf("import of the damaged stream = %v, want it refused for its checksum", err)
	}
	for _, q := range []string{`SELECT count(*) FROM calls`, `SELECT count(*) FROM import_errors`} {
		if n := countRows(t, db, q); n != 0 {
			t.Errorf("%s = %d after the damaged imports, want nothing stored", q, n)
		}
	}

	good := writeFile(t, "calls.jsonl", content)
	if sum, err := ImportFiles(context.Background(), db, []string{good}, Options{}); err != nil || sum.Imported != 1 {
		t.Fatalf("import of the good copy = %+v, %v; want its call imported", sum, err)
	}
	var amounts []string
	rows, err := db.Query(`SELECT pool_amount FROM calls WHERE external_ref = 'A'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var a string
		rows.Scan(&a)
		amounts = append(amounts, a)
	}
	if len(amounts) != 1 || amounts[0] != "10.00" {
		t.Errorf("call A stored with amounts %q, want once with 10.00", amounts)
	}
}

// TestImportCutGzipFileKeepsLines: a .gz file cut short has no checksum
// left to check; it is imported as before the check was made: its whole
// lines before the cut are stored, and the error names the file.
func TestImportCutGzipFileKeepsLines(t *testing.T) {
	db := openDB(t)
	var b strings.Builder
	for i := range 200 {
		b.WriteString(goodLine(fmt.Sprintf("R%d", i), "", ts1) + "\n")
	}
	gz := storedGzip(t, b.String())
	p := writeFile(t, "cut.jsonl.gz", string(gz[:len(gz)/2]))
	sum, err := ImportFiles(context.Background(), db, []string{p}, Options{})
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("import of a cut .gz = %v, want an error naming %s and the cut", err, p)
	}
	if n := countRows(t, db, `SELECT count(*) FROM calls`); n == 0 || n != sum.Imported || n >= 200 {
		t.Errorf("%d calls stored, summary %+v: want the lines before the cut", n, sum)
	}
}
