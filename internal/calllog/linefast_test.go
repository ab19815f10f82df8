package calllog

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// sameCall reports whether the lean decoder's row equals the full
// decoder's in every field a calls row keeps, and those that decide them.
func sameCall(fast, full recon.Call) bool {
	return fast.Hash == full.Hash && fast.At == full.At && fast.TS == full.TS && fast.Operation == full.Operation &&
		fast.ExternalRef == full.ExternalRef && fast.Error == full.Error && fast.StatusCode == full.StatusCode &&
		fast.OrderID == full.OrderID && fast.Outcome == full.Outcome && fast.Pool == full.Pool
}

// FuzzFastLine: on every line the lean decoder reads, it agrees with the
// full decoder field by field; it reads no line the full one finds bad.
// The seeds are FuzzParseLine's.
func FuzzFastLine(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/fuzz/FuzzParseLine/*")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		// The corpus file format: a header line, then []byte("…").
		_, arg, _ := strings.Cut(string(b), "[]byte(")
		if v, err := strconv.Unquote(strings.TrimSuffix(strings.TrimSpace(arg), ")")); err == nil {
			f.Add([]byte(v))
		}
	}
	f.Add([]byte(line("verifyPanPlusV2", "R1", "2026-11-21 10:00:00", "O1", map[string]any{"pool": poolA("100", "1.50", "98.50")})))
	f.Add([]byte(line("corporateEmpCheck", "R2", "2026-11-21 10:00:00", "O2", map[string]any{"pool": poolB("100", "2", "98")})))
	f.Add([]byte(line(svcapi.OpNameAbbreviations, "R3", "2026-11-21 10:00:00", "O3",
		map[string]any{"openingBalance": "50.00", "payableValue": "1.18", "closingBalance": "48.82"})))
	f.Fuzz(func(t *testing.T, in []byte) {
		in = bytes.TrimSpace(in)
		fast, ok := fastLine(in, []string{fuzzSecret})
		if !ok {
			return
		}
		full, err := parseLine(in, fuzzSecret)
		if err != nil {
			t.Fatalf("fastLine(%q) read a line the full decoder refuses: %v", in, err)
		}
		if !sameCall(fast, full) {
			t.Fatalf("fastLine(%q) =\n%+v\nparseLine =\n%+v", in, fast, full)
		}
	})
}

// TestFastLineSandboxLog: over a whole sandbox call log (every operation,
// every outcome, the planted defects), the lean decoder reads nearly every
// line, and each one exactly as the full decoder does.
func TestFastLineSandboxLog(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{Seed: 3, Days: 10, End: time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := sb.WriteCallLog(&buf); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, MaxLineBytes)
	n, lean := 0, 0
	for sc.Scan() {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 {
			continue
		}
		n++
		full, err := parseLine(l, "sandbox-secret")
		fast, ok := fastLine(l, []string{"sandbox-secret"})
		switch {
		case ok && err != nil:
			t.Errorf("line %d: the lean decoder read a line the full one refuses (%v)", n, err)
		case ok && !sameCall(fast, full):
			t.Errorf("line %d: lean %+v, full %+v", n, fast, full)
		case ok:
			lean++
		}
	}
	if n == 0 || lean < n*95/100 {
		t.Errorf("the lean decoder read %d of %d lines, want at least 95%%", lean, n)
	}
	t.Logf("%d of %d lines read by the lean decoder", lean, n)
}
