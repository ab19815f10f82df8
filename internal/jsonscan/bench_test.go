package jsonscan

import (
	"bufio"
	"os"
	"testing"
)

// BenchmarkSkipValue scans the lines of a call log (JSONSCAN_BENCH_FILE).
func BenchmarkSkipValue(b *testing.B) {
	f, err := os.Open(os.Getenv("JSONSCAN_BENCH_FILE"))
	if err != nil {
		b.Skip("JSONSCAN_BENCH_FILE: ", err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() && len(lines) < 20000 {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, l := range lines {
			if _, ok := SkipValue(l, 0, 0); !ok {
				b.Fatal("bad line")
			}
		}
	}
}
