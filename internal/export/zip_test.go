package export

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"
)

// TestZipWriterParts writes parts around the block size, by Write and by
// ReadFrom (as excelize's io.Copy does), and reads them back: the same
// bytes, checked against their CRC-32 by archive/zip, deflated.
func TestZipWriterParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []int{0, 10, zipBlock - 1, zipBlock, zipBlock + 1, 2 * zipBlock, 3*zipBlock + 12345}
	parts := map[string][]byte{}
	var buf bytes.Buffer
	z := newZipWriter(&buf, nil)
	for i, n := range sizes {
		// XML-like text with some randomness, so that it compresses as a sheet does.
		var b bytes.Buffer
		for b.Len() < n {
			fmt.Fprintf(&b, `<c r="A%d" s="%d"><v>%d.%02d</v></c>`, b.Len(), rng.IntN(20), rng.IntN(100000), rng.IntN(100))
		}
		data := b.Bytes()[:n]
		name := fmt.Sprintf("xl/worksheets/sheet%d.xml", i)
		parts[name] = data
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			_, err = io.Copy(w, io.NewSectionReader(bytes.NewReader(data), 0, int64(n)))
		} else {
			for p := data; len(p) > 0 && err == nil; p = p[min(len(p), 70000):] {
				_, err = w.Write(p[:min(len(p), 70000)])
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.File) != len(sizes) {
		t.Fatalf("%d parts, want %d", len(r.File), len(sizes))
	}
	for _, f := range r.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc) // checks the CRC-32 at the end
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !bytes.Equal(got, parts[f.Name]) {
			t.Errorf("%s: %d bytes read back differ from the %d written", f.Name, len(got), len(parts[f.Name]))
		}
		if f.Method != zip.Deflate {
			t.Errorf("%s: method %d, want deflate", f.Name, f.Method)
		}
		if n := len(parts[f.Name]); n > 1000 && f.CompressedSize64 >= uint64(n) {
			t.Errorf("%s: %d bytes deflated to %d", f.Name, n, f.CompressedSize64)
		}
	}
}

// TestCRC32Combine checks crc32Combine against the CRC-32 of the
// concatenation.
func TestCRC32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range [][2]int{{0, 0}, {0, 7}, {7, 0}, {1, 1}, {1000, 1}, {3, 4096}, {70000, 123457}} {
		a, b := make([]byte, n[0]), make([]byte, n[1])
		for i := range a {
			a[i] = byte(rng.Uint32())
		}
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		want := crc32.ChecksumIEEE(append(append([]byte(nil), a...), b...))
		if got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), uint64(len(b))); got != want {
			t.Errorf("%d + %d bytes: %08x, want %08x", n[0], n[1], got, want)
		}
	}
}
