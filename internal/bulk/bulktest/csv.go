package bulktest

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"testing"
)

// ReadCSV reads a whole CSV file (a results file) or fails the test.
func ReadCSV(tb testing.TB, path string) [][]string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	return recs
}

// Unzip returns every member of a zip file (a workbook) concatenated, or
// fails the test: what a search of "the unzipped xlsx" searches.
func Unzip(tb testing.TB, path string) []byte {
	tb.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer zr.Close()
	var all bytes.Buffer
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			tb.Fatal(err)
		}
		_, err = io.Copy(&all, rc)
		rc.Close()
		if err != nil {
			tb.Fatal(err)
		}
	}
	return all.Bytes()
}

// NoSecrets fails the test for each marker found in b (the bytes of what
// is named name).
func NoSecrets(tb testing.TB, name string, b []byte, markers []string) {
	tb.Helper()
	for _, m := range markers {
		if bytes.Contains(b, []byte(m)) {
			tb.Errorf("%s holds the secret %q", name, m)
		}
	}
}
