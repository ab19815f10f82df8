package calllog

import (
	"encoding/json"
	"strings"
	"testing"
)

// fuzzSecret is the client secret planted in the seeds of FuzzParseLine.
const fuzzSecret = "S3cr3t-FUZZ-4b1d"

// FuzzParseLine feeds the call-log line parser any bytes (seeds in
// testdata/fuzz/FuzzParseLine: good lines of every shape, bad ones, and
// lines carrying the client secret in every place). It must not panic, and
// nothing it keeps (any text of the row, the reason of a bad line) holds
// the secret; the documents it keeps are JSON.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(line("verifyPanPlusV2", "R1", "2026-11-21 10:00:00", "O1", map[string]any{"pool": poolA("100", "1.50", "98.50")})))
	f.Add([]byte(`{"statuscode":"UAD","status":"secret ` + fuzzSecret + ` refused","timestamp":"2026-11-21 10:00:00"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := parseLine(in, fuzzSecret)
		if err != nil && strings.Contains(err.Error(), fuzzSecret) {
			t.Fatalf("parseLine(%q): reason %q holds the secret", in, err)
		}
		texts := []string{c.Hash, c.Source, c.At, c.TS, c.Operation, c.Method, c.Path, c.ExternalRef, c.Error, c.StatusCode,
			c.ActCode, c.Status, c.SvcUUID, c.OrderID, c.Outcome, c.Pool.Account, c.Pool.Shape, c.Pool.Mode, c.Pool.Opening,
			c.Pool.Amount, c.Pool.Closing, string(c.Request), string(c.Response)}
		for i, s := range texts {
			if strings.Contains(s, fuzzSecret) {
				t.Fatalf("parseLine(%q): field %d = %q holds the secret", in, i, s)
			}
		}
		if err != nil {
			return
		}
		for _, doc := range [][]byte{c.Request, c.Response} {
			if doc != nil && !json.Valid(doc) {
				t.Fatalf("parseLine(%q) keeps %q: not JSON", in, doc)
			}
		}
		if c.Pool.Shape != "" {
			if _, _, _, err := c.Pool.Amounts(); err != nil {
				t.Fatalf("parseLine(%q) kept a pool it cannot read back: %v", in, err)
			}
		}
	})
}
