package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStartProfileWritesBoth: with both variables set, ending the profile
// leaves a CPU profile and a heap profile, each a gzipped pprof file;
// without them nothing is written.
func TestStartProfileWritesBoth(t *testing.T) {
	dir := t.TempDir()
	cpu, heap := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "heap.prof")
	t.Setenv(ProfileEnv, cpu)
	t.Setenv(HeapProfileEnv, heap)
	var stderr bytes.Buffer
	end := StartProfile(&stderr, nil)
	sink := make([][]byte, 0, 64)
	for range 64 {
		sink = append(sink, make([]byte, 1<<16))
	}
	end()
	_ = sink
	for _, p := range []string{cpu, heap} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: not a gzipped profile (%d bytes)", filepath.Base(p), len(b))
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q", stderr.String())
	}

	t.Setenv(ProfileEnv, "")
	t.Setenv(HeapProfileEnv, "")
	os.Remove(cpu)
	os.Remove(heap)
	StartProfile(&stderr, nil)()
	for _, p := range []string{cpu, heap} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s written without its variable (%v)", filepath.Base(p), err)
		}
	}
}
