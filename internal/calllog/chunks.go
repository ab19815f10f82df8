package calllog

// This file cuts an import's input into chunks of whole lines for the
// decoders (importer.go), within the budgets of a line, of a run without
// a line break and of a file (Limits).

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// chunk is a run of whole lines of the input, and once decoded, what they
// hold.
type chunk struct {
	seq    int
	data   []byte // the lines, each ending in '\n' (the last one may not)
	first  int    // the number of the first line
	offset int64  // where data starts in the (decompressed) input
	size   int64  // the length of data (kept once it is released)
	next   int    // the number of the line after the chunk (once decoded)
	long   bool   // data is empty: line first was longer than MaxLineBytes
	lines  []lineResult
}

// lineResult is a non-blank line: its call, or the reason it is bad.
type lineResult struct {
	n      int
	call   recon.Call
	reason string
}

// readChunks cuts the input into chunks of whole lines, about chunkBytes
// each. A line longer than lim.Line is skipped without being held whole
// and reported as a chunk of its own. Input beyond the budgets (lim.Run
// bytes without a line break, lim.File bytes in all) ends the reading with
// a *budget.Error naming the line, after the chunk of the whole lines
// before it; so does ctx, with its error.
func readChunks(ctx context.Context, r io.Reader, out chan<- *chunk, name string, lim Limits) error {
	cr := &chunkReader{ctx: ctx, br: bufio.NewReaderSize(budget.LimitReader(r, lim.File), 64<<10),
		out: out, name: name, lim: lim, line: 1}
	buf := make([]byte, 0, chunkBytes)
	for !cr.eof || len(buf) > 0 {
		var err error
		if buf, err = cr.fill(buf); err != nil {
			if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
				_ = cr.send(&chunk{data: buf[:i+1], first: cr.line, offset: cr.offset})
				cr.line += bytes.Count(buf[:i+1], []byte{'\n'})
			}
			return cr.readError(err)
		}
		end := bytes.LastIndexByte(buf, '\n') + 1
		if end == 0 && !cr.eof { // one line longer than lim.Line: skip to its end
			if err := cr.skipLine(int64(len(buf))); err != nil {
				return err
			}
			buf = buf[:0]
			continue
		}
		if end == 0 {
			end = len(buf) // the last line, without its newline
		}
		c := &chunk{data: buf[:end], first: cr.line, offset: cr.offset}
		cr.line += bytes.Count(c.data, []byte{'\n'})
		cr.offset += int64(end)
		rest := buf[end:]
		buf = make([]byte, len(rest), max(chunkBytes, len(rest)+chunkBytes/2))
		copy(buf, rest)
		if err := cr.send(c); err != nil {
			return err
		}
	}
	return nil
}

// chunkReader is the state of readChunks: where it is in the input.
type chunkReader struct {
	ctx    context.Context
	br     *bufio.Reader
	out    chan<- *chunk
	name   string
	lim    Limits
	seq    int
	line   int   // the number of the next line to send
	offset int64 // where that line starts in the (decompressed) input
	eof    bool
}

// send sends the next chunk, unless ctx ends first.
func (cr *chunkReader) send(c *chunk) error {
	c.seq = cr.seq
	cr.seq++
	select {
	case cr.out <- c:
		return nil
	case <-cr.ctx.Done():
		return cr.ctx.Err()
	}
}

// fill reads on into buf up to a chunk, and on while no line ends in it,
// up to one line longer than the budget of a line.
func (cr *chunkReader) fill(buf []byte) ([]byte, error) {
	newline := bytes.IndexByte(buf, '\n') >= 0
	for !cr.eof && (len(buf) < chunkBytes || !newline) && len(buf) <= cr.lim.Line {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := cr.br.Read(buf[len(buf):cap(buf)])
		newline = newline || bytes.IndexByte(buf[len(buf):len(buf)+n], '\n') >= 0
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			cr.eof = true
		} else if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// skipLine reads past the end of a line longer than the budget of a line,
// of which read bytes were read already, and sends it as a long chunk. A
// line that goes on past lim.Run bytes ends the reading: the input is not
// a call log.
func (cr *chunkReader) skipLine(read int64) error {
	skipped := read
	for {
		if err := cr.ctx.Err(); err != nil {
			return err
		}
		part, err := cr.br.ReadSlice('\n')
		skipped += int64(len(part))
		if skipped > cr.lim.Run {
			return &budget.Error{Input: cr.name, Line: cr.line, Reason: fmt.Sprintf(
				"no line break in %s: not a call log (nothing more of it was read)", budget.Size(cr.lim.Run))}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			cr.eof = true
		} else if err != nil {
			return cr.readError(err)
		}
		break
	}
	if err := cr.send(&chunk{first: cr.line, long: true}); err != nil {
		return err
	}
	cr.offset += skipped
	cr.line++
	return nil
}

// readError is the error of a read that failed at the current line.
func (cr *chunkReader) readError(err error) error {
	if errors.Is(err, budget.ErrOver) {
		return &budget.Error{Input: cr.name, Line: cr.line, Reason: fmt.Sprintf(
			"more than %s read: more than a call-log file may hold (the lines before were imported; nothing after was read)",
			budget.Size(cr.lim.File))}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("read line %d: %w", cr.line, err)
}
