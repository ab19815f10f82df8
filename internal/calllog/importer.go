package calllog

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/progress"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// BatchLines is how many lines an import commits per transaction.
const BatchLines = 20000

// The budgets of a call-log file (Limits' defaults; the README lists them).
const (
	// MaxLineBytes is the longest line an import reads; a longer one is a
	// bad line (and the rest of the file is still read, without holding it).
	MaxLineBytes = 16 << 20
	// MaxRunBytes of input without a line break, or with blank lines
	// only, end the import of a file: it is not a call log (/dev/zero, a
	// disk image, a gzip bomb).
	MaxRunBytes = 256 << 20
	// MaxFileBytes is the most one file or stream may hold, decompressed
	// (about 3 million calls), and MaxFileLines the most lines (blank ones
	// not counted): an endless stream of good lines ends too.
	MaxFileBytes = 4 << 30
	MaxFileLines = 4000000
	// MaxBadLines bad lines, once they are also more than the lines read
	// well, end the import of a file: it is not a call log (random bytes,
	// another program's log).
	MaxBadLines = 10000
	// MaxErrors is the most bad lines a Summary names (Errors); Bad counts
	// them all, and import_errors keeps them all.
	MaxErrors = 1000
)

// Limits are the budgets of one call-log file or stream; a zero field is
// its default (MaxLineBytes, MaxRunBytes, MaxFileBytes, MaxFileLines,
// MaxBadLines).
type Limits struct {
	Line  int
	Run   int64
	File  int64
	Lines int
	Bad   int
}

func (l *Limits) defaults() {
	if l.Line <= 0 {
		l.Line = MaxLineBytes
	}
	if l.Run <= 0 {
		l.Run = MaxRunBytes
	}
	if l.File <= 0 {
		l.File = MaxFileBytes
	}
	if l.Lines <= 0 {
		l.Lines = MaxFileLines
	}
	if l.Bad <= 0 {
		l.Bad = MaxBadLines
	}
}

// chunkBytes is how much of the input a worker decodes at once.
const chunkBytes = 1 << 20

// Summary counts what an import did. Lines counts the non-blank lines
// read: each was imported, a duplicate of a line imported before, or bad.
// Errors names the first MaxErrors bad lines.
type Summary struct {
	Files, Lines, Imported, Duplicates, Bad int
	Errors                                  []LineError
	// FirstTS and LastTS are the earliest and the latest call time (ts)
	// of the lines read ("" when none was a call).
	FirstTS, LastTS string
}

// Add adds the counts and errors of o to s.
func (s *Summary) Add(o Summary) {
	s.Files += o.Files
	s.Lines += o.Lines
	s.Imported += o.Imported
	s.Duplicates += o.Duplicates
	s.Bad += o.Bad
	s.addErrors(o.Errors)
	s.span(o.FirstTS)
	s.span(o.LastTS)
}

// addErrors keeps errs while Errors holds fewer than MaxErrors.
func (s *Summary) addErrors(errs []LineError) {
	s.Errors = append(s.Errors, errs[:min(len(errs), max(0, MaxErrors-len(s.Errors)))]...)
}

// span widens FirstTS..LastTS to hold ts.
func (s *Summary) span(ts string) {
	if ts == "" {
		return
	}
	if s.FirstTS == "" || ts < s.FirstTS {
		s.FirstTS = ts
	}
	if ts > s.LastTS {
		s.LastTS = ts
	}
}

// String is the one-line summary the import-calls command prints.
func (s Summary) String() string {
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

// Options are the optional parts of an import.
type Options struct {
	Log *slog.Logger
	// Progress is advanced by the bytes read (compressed size for .gz,
	// read twice: checked whole, then imported), shown in MiB, and counts
	// the lines read.
	Progress *progress.Bar
	Now      func() time.Time
	// Secrets (the configured client secret) are replaced by
	// redact.Marker wherever they appear in what is stored: every text of
	// a call, the lines kept in the database, and the reasons of bad lines.
	Secrets []string
	// Workers decode lines at once (default: one per CPU but the one the
	// database writer needs, and at least one).
	Workers int
	// Limits are the budgets of each file (zero: the defaults).
	Limits Limits
}

func (o *Options) defaults() {
	o.Progress.SetUnit(progress.Bytes)
	o.Progress.CountItems("lines")
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Workers <= 0 {
		o.Workers = max(1, runtime.GOMAXPROCS(0)-1)
	}
	o.Limits.defaults()
}

// Writer stores calls and the lines that could not be read as calls: the
// import and the Recorder write to it; *store.DB implements it.
type Writer interface {
	// InsertCalls stores a batch in one transaction and returns how many
	// calls were new (a call whose line hash is stored already is not).
	InsertCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []store.ImportError) (int, error)
	// CallSource returns the id of a call-log file, recording it when new.
	CallSource(ctx context.Context, path string, size int64, modTime time.Time, gzip bool) (int64, error)
	// SealCallSource records what the import of a call-log file read of it
	// (its SHA-256, size, lines and the times of its calls): the run
	// manifests name the file by it.
	SealCallSource(ctx context.Context, id int64, s store.CallSourceSeal) error
}

var _ Writer = (*store.DB)(nil)

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

// ImportFiles imports each file (a pattern with * ? [ is expanded when no
// file has that exact name, ExpandPaths), as Import does a stream, but
// each line is kept as a reference into its file (byte offset and length,
// checked by the line's SHA-256), not copied. A file that is not a regular
// file (a FIFO, a device) is read as a stream: its lines are kept in the
// database. A file larger than o.Limits.File is refused (a *budget.Error)
// before any file is imported. A .gz file is read twice: checked whole
// first, and refused with nothing of it stored when a checksum or header
// is wrong (checkGzip). It stops at the first file that cannot be read or
// stored, or goes beyond its budget; the summary counts what was imported
// until then.
func ImportFiles(ctx context.Context, db Writer, paths []string, o Options) (Summary, error) {
	o.defaults()
	var sum Summary
	files, err := ExpandPaths(paths)
	if err != nil {
		return sum, err
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() {
			continue // reported when the file is opened
		}
		if st.Size() > o.Limits.File {
			return sum, &budget.Error{Input: f, Reason: fmt.Sprintf("%s: more than the %s a call-log file may hold: split it (nothing was imported)",
				budget.Size(st.Size()), budget.Size(o.Limits.File))}
		}
		total += st.Size()
		if isGzipFile(f) {
			total += st.Size() // read twice (checkGzip)
		}
	}
	o.Progress.SetTotal(total)
	for _, p := range files {
		s, err := importFile(ctx, db, p, o)
		sum.Add(s)
		if err != nil {
			return sum, err
		}
	}
	return sum, nil
}

func importFile(ctx context.Context, db Writer, path string, o Options) (Summary, error) {
	f, err := budget.Open(ctx, path) // a FIFO's open waits for its writer
	if err != nil {
		return Summary{}, fmt.Errorf("import %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Summary{}, fmt.Errorf("import %w", err)
	}
	if !st.Mode().IsRegular() {
		return importReader(ctx, db, path, budget.Reader(ctx, f), o)
	}
	var magic [2]byte
	n, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Summary{}, fmt.Errorf("import %w", err)
	}
	gz := isGzip(magic[:n])
	var in io.Reader = f
	if gz {
		if in, err = checkedGzipFile(ctx, f, path, o); err != nil {
			return Summary{Files: 1}, err
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	src, err := db.CallSource(ctx, abs, st.Size(), st.ModTime(), gz)
	if err != nil {
		return Summary{Files: 1}, fmt.Errorf("import %s: %w", path, err)
	}
	hr := &hashingReader{r: in, h: sha256.New()}
	sum, err := importStream(ctx, db, path, hr, o, src)
	if err != nil {
		return sum, err
	}
	seal := store.CallSourceSeal{Name: path, SHA256: hex.EncodeToString(hr.h.Sum(nil)), Bytes: hr.n,
		Lines: sum.Lines, FirstTS: sum.FirstTS, LastTS: sum.LastTS}
	if err := db.SealCallSource(ctx, src, seal); err != nil {
		return sum, fmt.Errorf("import %s: %w", path, err)
	}
	return sum, nil
}

// hashingReader reads r, taking the SHA-256 of the bytes read and counting
// them: the seal of a call-log file, of the bytes the import read and
// imported (from the file's start through its last line: what sha256sum
// printed for the file when the import's reading reached its end). The
// import reads a file to its end (a gzip reader reads on past each
// member, refusing bytes that are no member), so nothing is left unread
// but what was appended since: the next import's to read, import and seal.
type hashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (hr *hashingReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.n += int64(n)
	return n, err
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

// Import reads one call log (JSONL, plain or gzip, detected by its magic
// bytes) from r and stores its calls; name is the file name or "-" for
// standard input. The redacted lines are kept in the database (there is no
// file to point at). Lines are decoded in parallel and committed every
// BatchLines lines, so a failure loses nothing already committed. Bad lines
// are recorded in import_errors and returned in the summary; they are not
// an error. The error is for reading r (a read of r that blocks ends with
// ctx), writing the database, or a stream beyond its budget (o.Limits: a
// *budget.Error naming the line; the lines before it are stored). A gzip
// stream is copied to a temporary file and checked whole before any of its
// lines is stored (checkGzip): a damaged one is refused, nothing stored.
func Import(ctx context.Context, db Writer, name string, r io.Reader, o Options) (Summary, error) {
	o.defaults()
	return importReader(ctx, db, name, budget.Reader(ctx, r), o)
}

// importStream imports one call log: the input is cut into chunks of whole
// lines, decoded by o.Workers workers, and written in input order, BatchLines
// lines a transaction. src is the call_sources id of a file (its lines are
// kept by reference), 0 for a stream (its lines are kept redacted).
func importStream(ctx context.Context, db Writer, name string, r io.Reader, o Options, src int64) (Summary, error) {
	sum := Summary{Files: 1}
	in, err := uncompressed(r, o.Progress)
	if err != nil {
		return sum, fmt.Errorf("import %s: gzip: %w", name, err)
	}
	defer in.Close()
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results, readErr := decodeChunks(dctx, in, name, src, o)
	w := &importWriter{db: db, ctx: ctx, name: name, now: o.Now().UTC(), sum: &sum, bar: o.Progress,
		maxLines: o.Limits.Lines, maxBad: o.Limits.Bad, maxBlank: o.Limits.Run}
	w.start()
	werr := w.storeInOrder(results, cancel)
	if err := w.close(); err != nil && (werr == nil || errors.Is(werr, errStoreFailed)) {
		werr = err
	}
	rerr := <-readErr
	sum.span(w.span.FirstTS)
	sum.span(w.span.LastTS)
	var be *budget.Error
	switch {
	case errors.As(werr, &be), werr == nil && errors.As(rerr, &be):
		return sum, be // names the file and line already
	case werr != nil:
		return sum, fmt.Errorf("import %s: %w", name, werr)
	case rerr != nil && !errors.Is(rerr, context.Canceled):
		return sum, fmt.Errorf("import %s: %w", name, rerr)
	case ctx.Err() != nil:
		return sum, fmt.Errorf("import %s: %w", name, ctx.Err())
	}
	if sum.Lines == 0 {
		if err := w.empty(); err != nil {
			return sum, fmt.Errorf("import %s: %w", name, err)
		}
	}
	o.Log.Info("call log imported", "file", name, "lines", sum.Lines, "imported", sum.Imported,
		"duplicates", sum.Duplicates, "bad", sum.Bad)
	return sum, nil
}

// uncompressed is the call log r holds, gunzipped when it starts with
// gzip's magic bytes; bar (when not nil) counts the bytes read from r.
func uncompressed(r io.Reader, bar *progress.Bar) (io.ReadCloser, error) {
	if bar != nil {
		r = countingReader{r, bar}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); isGzip(magic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		return zr, nil
	}
	return io.NopCloser(br), nil
}

// decodeChunks cuts the input into chunks of whole lines (readChunks) and
// decodes them on o.Workers goroutines. results delivers the decoded
// chunks in any order and is closed after the last; readErr then holds the
// reading's error. Cancelling ctx stops the reading and the decoders.
func decodeChunks(ctx context.Context, in io.Reader, name string, src int64, o Options) (results <-chan *chunk, readErr <-chan error) {
	// Room for the decoders to run ahead of the writer by about a batch.
	chunks := make(chan *chunk, 4*o.Workers)
	out := make(chan *chunk, 16)
	rerr := make(chan error, 1)
	go func() {
		defer close(chunks)
		rerr <- readChunks(ctx, in, chunks, name, o.Limits)
	}()
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Go(func() {
			for c := range chunks {
				c.decode(name, src, o.Secrets, o.Limits.Line)
				select {
				case out <- c:
				case <-ctx.Done():
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out, rerr
}

// importWriter gathers decoded lines into batches of BatchLines lines and
// stores each batch in one transaction, in order. The batches are stored by
// a goroutine of their own, so that the lines of the next one are decoded
// while the last is written: the database's one writer is the import's
// bound, and it never waits for the decoders while a batch is ready.
type importWriter struct {
	db    Writer
	ctx   context.Context
	name  string
	now   time.Time
	sum   *Summary // updated by the storing goroutine; read after close
	bar   *progress.Bar
	calls []recon.Call
	bad   []store.ImportError
	errs  []LineError
	lines int
	span  Summary // FirstTS and LastTS of the calls read

	// The file's bad lines and lines read well so far, and the budgets
	// of its lines and bad lines (Limits.Lines, Limits.Bad).
	bad1, good1, maxLines, maxBad int
	// blank counts the bytes since the last non-blank line; maxBlank is
	// their budget (Limits.Run).
	blank, maxBlank int64

	batches chan importBatch // to the storing goroutine
	done    chan error       // its first error, when it ends
	failed  atomic.Bool      // it has failed: stop sending
}

// importBatch is one transaction's lines.
type importBatch struct {
	calls []recon.Call
	bad   []store.ImportError
	errs  []LineError
	lines int
}

// start starts the storing goroutine: one batch is stored while at most
// one more waits, so at most three batches are held.
func (w *importWriter) start() {
	w.batches = make(chan importBatch, 1)
	w.done = make(chan error, 1)
	go func() {
		var err error
		for b := range w.batches {
			if err == nil {
				if err = w.store(b); err != nil {
					w.failed.Store(true)
				}
			}
		}
		w.done <- err
	}()
}

// close waits for the batches sent to be stored; it returns the first
// error in storing them.
func (w *importWriter) close() error {
	close(w.batches)
	return <-w.done
}

// storeInOrder takes the decoded chunks in input order (add) and sends
// the last batch. After an error it cancels the decoding (cancel) and
// drains results; the error is the first one.
func (w *importWriter) storeInOrder(results <-chan *chunk, cancel func()) error {
	pending := map[int]*chunk{}
	next := 0
	var err error
	for c := range results {
		if err != nil {
			continue // drain
		}
		pending[c.seq] = c
		for c := pending[next]; c != nil && err == nil; c = pending[next] {
			delete(pending, next)
			next++
			err = w.add(c)
		}
		if err != nil {
			cancel()
		}
	}
	if err != nil {
		return err
	}
	return w.flush()
}

// empty records an input without a line as one bad line of its own (line
// 0 of the file), after close.
func (w *importWriter) empty() error {
	le := LineError{File: w.name, Line: 0, Reason: "empty file: no call records"}
	w.sum.Bad++
	w.sum.Errors = append(w.sum.Errors, le)
	_, err := w.db.InsertCalls(w.ctx, w.now, nil, []store.ImportError{{Source: w.name, Reason: le.Reason}})
	return err
}

// add takes a decoded chunk's lines, in order. Input beyond the budgets
// of bad and blank lines ends the file (a *budget.Error), after the lines
// before are sent to be stored.
func (w *importWriter) add(c *chunk) error {
	w.bar.AddItems(int64(len(c.lines)))
	if len(c.lines) > 0 {
		w.blank = 0
	} else if w.blank += c.size; w.blank > w.maxBlank {
		return w.stop(c.next-1, fmt.Sprintf("no call in %s, only blank lines: not a call log", budget.Size(w.maxBlank)))
	}
	for i := range c.lines {
		l := &c.lines[i]
		if w.bad1+w.good1 == w.maxLines {
			return w.stop(l.n, fmt.Sprintf("more than %d lines: more than a call-log file may hold, split it", w.maxLines))
		}
		if l.reason != "" {
			w.bad = append(w.bad, store.ImportError{Source: w.name, Line: l.n, Reason: l.reason})
			w.errs = append(w.errs, LineError{File: w.name, Line: l.n, Reason: l.reason})
			w.bad1++
		} else {
			w.calls = append(w.calls, l.call)
			w.good1++
			w.span.span(l.call.TS)
		}
		w.lines++
		if w.bad1 > w.maxBad && w.bad1 > w.good1 {
			return w.stop(l.n, fmt.Sprintf("more than %d bad lines, and more than the lines read well: not a call log?", w.maxBad))
		}
		if w.lines == BatchLines {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// stop ends the file at line n, beyond a budget (reason): the lines taken
// so far are sent to be stored.
func (w *importWriter) stop(n int, reason string) error {
	if err := w.flush(); err != nil {
		return err
	}
	return &budget.Error{Input: w.name, Line: n, Reason: reason + " (the lines before were imported; nothing after was read)"}
}

// flush sends the batch to be stored. After the storing goroutine failed
// it sends nothing more; close returns the error.
func (w *importWriter) flush() error {
	if w.lines == 0 {
		return nil
	}
	if w.failed.Load() {
		return errStoreFailed
	}
	w.batches <- importBatch{w.calls, w.bad, w.errs, w.lines}
	w.calls, w.bad, w.errs, w.lines = make([]recon.Call, 0, BatchLines), nil, nil, 0
	return nil
}

// errStoreFailed stops the reading of lines once a batch failed to be
// stored; the import returns the storing error itself.
var errStoreFailed = errors.New("storing a batch failed")

// store stores one batch in one transaction and counts it.
func (w *importWriter) store(b importBatch) error {
	imported, err := w.db.InsertCalls(w.ctx, w.now, b.calls, b.bad)
	if err != nil {
		return err
	}
	w.sum.Lines += b.lines
	w.sum.Imported += imported
	w.sum.Duplicates += len(b.calls) - imported
	w.sum.Bad += len(b.bad)
	w.sum.addErrors(b.errs)
	return nil
}
