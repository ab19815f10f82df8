package calllog

// This file checks a gzip call log whole before the import stores any of
// its lines (importFile, importReader).

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/progress"
)

// isGzip says whether head, the first bytes of a stream, begin as a gzip
// stream does (its magic bytes 0x1f 0x8b).
func isGzip(head []byte) bool { return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b }

// checkGzip reads the gzip stream r to its end, decompressing it to
// nothing, so that no line of it is stored before its checksum is known
// good: gzip's CRC-32 and size of a member come at the member's end, and
// the import commits lines as it reads them (BatchLines a transaction).
// The import of a .gz thus reads and decompresses it twice, and a stream
// is copied to a temporary file on the way (checkedGzipStream): the cost
// of storing nothing from a damaged file.
//
// It returns the bytes of r it read and whether it checked them whole
// (every member's checksum and size matched). A stream cut short
// (io.ErrUnexpectedEOF: its last checksum is not there to check) or going
// on past lim decompressed bytes (budget.ErrOver) is no error: the import
// reads it as it always did, keeping the lines before the cut or the
// budget and ending with an error that names the file. Any other error (a
// wrong checksum, header or deflate data; a read failing; ctx ended)
// refuses the stream: nothing of it is to be stored.
func checkGzip(ctx context.Context, r io.Reader, lim int64, bar *progress.Bar) (read int64, whole bool, err error) {
	cr := &checkReader{ctx: ctx, r: countingReader{r, bar}}
	zr, err := gzip.NewReader(bufio.NewReaderSize(cr, 64<<10))
	if err == nil {
		_, err = io.Copy(io.Discard, budget.LimitReader(zr, lim))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, budget.ErrOver) {
		return cr.n, false, nil
	}
	return cr.n, err == nil, err
}

// refused is the error of an import that checkGzip refused.
func refused(name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("import %s: %w", name, err)
	}
	return fmt.Errorf("import %s: %w (nothing of it was imported)", name, err)
}

// checkedGzipFile checks the gzip file f (checkGzip) and returns what the
// import is to read of it, from its start: the bytes checked (not what
// was appended since), or the whole file when they could not be checked
// whole.
func checkedGzipFile(ctx context.Context, f *os.File, name string, o Options) (io.Reader, error) {
	n, whole, err := checkGzip(ctx, f, o.Limits.File, o.Progress)
	if err != nil {
		return nil, refused(name, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("import %w", err)
	}
	if whole {
		return io.LimitReader(f, n), nil
	}
	return f, nil
}

// checkedGzipStream checks the gzip stream r (checkGzip), copying what it
// reads to a temporary file, and returns what the import is to read: the
// copy, then the rest of r when it could not be checked whole. done
// removes the copy.
func checkedGzipStream(ctx context.Context, r io.Reader, name string, o Options) (in io.Reader, done func(), err error) {
	tmp, err := os.CreateTemp("", "svcrecon-calls-*.gz")
	if err != nil {
		return nil, nil, fmt.Errorf("import %s: %w", name, err)
	}
	done = func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}
	_, whole, err := checkGzip(ctx, io.TeeReader(r, tmp), o.Limits.File, o.Progress)
	if err != nil {
		done()
		return nil, nil, refused(name, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		done()
		return nil, nil, fmt.Errorf("import %s: %w", name, err)
	}
	if whole {
		return tmp, done, nil
	}
	return io.MultiReader(tmp, r), done, nil
}

// importReader imports a stream (standard input, a FIFO) as importStream
// does, a gzip stream once checked whole (checkedGzipStream).
func importReader(ctx context.Context, db Writer, name string, r io.Reader, o Options) (Summary, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); !isGzip(magic) {
		return importStream(ctx, db, name, br, o, 0)
	}
	in, done, err := checkedGzipStream(ctx, br, name, o)
	if err != nil {
		return Summary{Files: 1}, err
	}
	defer done()
	return importStream(ctx, db, name, in, o, 0)
}

// isGzipFile says whether the file at path begins as a gzip stream does.
func isGzipFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [2]byte
	n, _ := io.ReadFull(f, magic[:])
	return isGzip(magic[:n])
}

// checkReader reads r for checkGzip, counting the bytes read (n), until
// ctx ends.
type checkReader struct {
	ctx context.Context
	r   io.Reader
	n   int64
}

func (c *checkReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
