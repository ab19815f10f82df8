package bulktest

import (
	"encoding/csv"
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
