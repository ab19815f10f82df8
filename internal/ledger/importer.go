package ledger

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/progress"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// BatchLines is how many lines an import commits per transaction.
const BatchLines = 5000

// MaxLineBytes is the longest line an import reads; a longer one is a bad
// line (and the rest of the file is still read).
const MaxLineBytes = 64 << 20

// ImportSummary counts what an import did. Lines counts the non-blank lines
// read: each was imported, a duplicate of a line imported before, or bad.
type ImportSummary struct {
	Files, Lines, Imported, Duplicates, Bad int
	Errors                                  []LineError
}

// Add adds the counts and errors of o to s.
func (s *ImportSummary) Add(o ImportSummary) {
	s.Files += o.Files
	s.Lines += o.Lines
	s.Imported += o.Imported
	s.Duplicates += o.Duplicates
	s.Bad += o.Bad
	s.Errors = append(s.Errors, o.Errors...)
}

// String is the one-line summary the import-calls command prints.
func (s ImportSummary) String() string {
	return fmt.Sprintf("%d files, %d lines: %d imported, %d already imported, %d bad",
		s.Files, s.Lines, s.Imported, s.Duplicates, s.Bad)
}

// LineError is a line that could not be imported. Line 0 concerns the file
// as a whole (an empty file).
type LineError struct {
	File   string
	Line   int
	Reason string
}

func (e LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// ImportOptions are the optional parts of an import.
type ImportOptions struct {
	Log *slog.Logger
	// Progress is advanced by the bytes read (compressed size for .gz),
	// shown in MiB, and counts the lines read.
	Progress *progress.Bar
	Now      func() time.Time
	// Secrets (the configured client secret) are replaced by
	// redact.Marker wherever they appear in what is stored: request,
	// response, error, status and every other text of a call, and the
	// reasons of bad lines.
	Secrets []string
}

func (o *ImportOptions) defaults() {
	o.Progress.SetUnit(progress.Bytes)
	o.Progress.CountItems("lines")
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Import reads one call log (JSONL, plain or gzip, detected by its magic
// bytes) from r and stores its calls; name is the file name or "-" for
// standard input. Lines are streamed and committed every BatchLines lines,
// so a failure loses nothing already committed. Bad lines are recorded in
// import_errors and returned in the summary; they are not an error. The
// error is for reading r or writing the database.
func Import(ctx context.Context, db CallWriter, name string, r io.Reader) (ImportSummary, error) {
	return ImportWith(ctx, db, name, r, ImportOptions{})
}

// ImportFiles imports each file (a pattern with * ? [ is expanded when no
// file has that exact name). It stops at the first file that cannot be read.
func ImportFiles(ctx context.Context, db CallWriter, paths []string) (ImportSummary, error) {
	return ImportFilesWith(ctx, db, paths, ImportOptions{})
}

// ExpandPaths expands glob patterns the shell left alone; a pattern that
// matches nothing is an error naming it.
func ExpandPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil || !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", p, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("pattern %q: no file matches", p)
		}
		out = append(out, m...)
	}
	return out, nil
}

// ImportFilesWith is ImportFiles with options.
func ImportFilesWith(ctx context.Context, db CallWriter, paths []string, o ImportOptions) (ImportSummary, error) {
	o.defaults()
	var sum ImportSummary
	files, err := ExpandPaths(paths)
	if err != nil {
		return sum, err
	}
	if o.Progress != nil {
		var total int64
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				total += st.Size()
			}
		}
		o.Progress.SetTotal(total)
	}
	for _, p := range files {
		s, err := importFile(ctx, db, p, o)
		sum.Add(s)
		if err != nil {
			return sum, err
		}
	}
	return sum, nil
}

func importFile(ctx context.Context, db CallWriter, path string, o ImportOptions) (ImportSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return ImportSummary{}, fmt.Errorf("import %w", err)
	}
	defer f.Close()
	return ImportWith(ctx, db, path, f, o)
}

type countingReader struct {
	r   io.Reader
	bar *progress.Bar
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.bar.Add(int64(n))
	return n, err
}

// ImportWith is Import with options.
func ImportWith(ctx context.Context, db CallWriter, name string, r io.Reader, o ImportOptions) (ImportSummary, error) {
	o.defaults()
	sum := ImportSummary{Files: 1}
	if o.Progress != nil {
		r = countingReader{r, o.Progress}
	}
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return sum, fmt.Errorf("import %s: gzip: %w", name, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<20)
	}
	imp := &importer{db: db, name: name, now: o.Now().UTC(), log: o.Log}
	batches := make(chan []parsed, 2)
	readErr := make(chan error, 1)
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(batches)
		readErr <- readLines(pctx, br, batches, o.Secrets, o.Progress)
	}()
	var werr error
	for b := range batches {
		if werr != nil {
			continue // drain
		}
		if werr = imp.write(ctx, b, &sum); werr != nil {
			cancel()
		}
	}
	rerr := <-readErr
	if werr != nil {
		return sum, fmt.Errorf("import %s: %w", name, werr)
	}
	if rerr != nil {
		return sum, fmt.Errorf("import %s: %w", name, rerr)
	}
	if sum.Lines == 0 {
		le := LineError{File: name, Line: 0, Reason: "empty file: no call records"}
		sum.Bad++
		sum.Errors = append(sum.Errors, le)
		if err := imp.write(ctx, []parsed{{line: 0, err: errors.New(le.Reason)}}, &ImportSummary{}); err != nil {
			return sum, fmt.Errorf("import %s: %w", name, err)
		}
	}
	o.Log.Info("call log imported", "file", name, "lines", sum.Lines, "imported", sum.Imported,
		"duplicates", sum.Duplicates, "bad", sum.Bad)
	return sum, nil
}

// parsed is one line after parsing: a row, or the reason it is bad.
type parsed struct {
	line int
	row  recon.Call
	err  error
}

// readLines reads and parses lines, sending them in batches; bar counts them.
func readLines(ctx context.Context, br *bufio.Reader, out chan<- []parsed, secrets []string, bar *progress.Bar) error {
	batch := make([]parsed, 0, BatchLines)
	send := func() error {
		if len(batch) == 0 {
			return nil
		}
		select {
		case out <- batch:
		case <-ctx.Done():
			return ctx.Err()
		}
		batch = make([]parsed, 0, BatchLines)
		return nil
	}
	var buf []byte
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br, &buf)
		if err != nil && !errors.Is(err, io.EOF) {
			if serr := send(); serr != nil {
				return serr
			}
			return fmt.Errorf("read line %d: %w", n, err)
		}
		switch {
		case tooLong:
			batch = append(batch, parsed{line: n, err: fmt.Errorf("line longer than %d MiB", MaxLineBytes>>20)})
		case len(bytes.TrimSpace(line)) > 0:
			p := parsed{line: n}
			p.row, p.err = parseLine(line, secrets...)
			batch = append(batch, p)
		}
		if tooLong || len(line) > 0 {
			bar.AddItems(1)
		}
		if len(batch) == BatchLines {
			if serr := send(); serr != nil {
				return serr
			}
		}
		if err != nil { // io.EOF
			return send()
		}
	}
}

// readLine reads one line of any length up to MaxLineBytes. The line is
// valid until the next call.
func readLine(br *bufio.Reader, buf *[]byte) (line []byte, tooLong bool, err error) {
	*buf = (*buf)[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		if !tooLong {
			switch {
			case len(*buf)+len(chunk) > MaxLineBytes:
				tooLong = true
				*buf = (*buf)[:0]
			case full || len(*buf) > 0:
				*buf = append(*buf, chunk...)
			}
		}
		if full {
			continue
		}
		switch {
		case tooLong:
			return nil, true, err
		case len(*buf) > 0:
			return *buf, false, err
		}
		return chunk, false, err
	}
}

// CallWriter stores calls and the lines that could not be read as calls;
// *store.DB implements it.
type CallWriter interface {
	// InsertCalls stores a batch in one transaction and returns how many
	// calls were new (a call whose line hash is stored already is not).
	InsertCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []store.ImportError) (int, error)
}

var _ CallWriter = (*store.DB)(nil)

type importer struct {
	db   CallWriter
	name string
	now  time.Time
	log  *slog.Logger
}

// write stores one batch in one transaction.
func (im *importer) write(ctx context.Context, batch []parsed, sum *ImportSummary) error {
	calls := make([]recon.Call, 0, len(batch))
	var bad []store.ImportError
	var errs []LineError
	for i := range batch {
		p := &batch[i]
		if p.err != nil {
			bad = append(bad, store.ImportError{Source: im.name, Line: p.line, Reason: p.err.Error()})
			errs = append(errs, LineError{File: im.name, Line: p.line, Reason: p.err.Error()})
			continue
		}
		c := p.row
		c.Source, c.Line = im.name, p.line
		calls = append(calls, c)
	}
	imported, err := im.db.InsertCalls(ctx, im.now, calls, bad)
	if err != nil {
		return err
	}
	sum.Lines += len(batch)
	sum.Imported += imported
	sum.Duplicates += len(calls) - imported
	sum.Bad += len(bad)
	sum.Errors = append(sum.Errors, errs...)
	return nil
}
