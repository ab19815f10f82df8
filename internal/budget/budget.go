// Package budget bounds what svcrecon reads. Every reader of a file or a
// stream has a budget of bytes per line and per file (the constants below,
// listed in the README); an input beyond one is refused with one *Error
// naming the input and, where it applies, the line. A file is checked
// before it is opened where its size says enough (Regular), and a stream
// as it is read. Reads that block in the kernel (standard input, a pipe,
// a FIFO's open and reads) end when their context does (Open, Reader), so
// that SIGTERM ends a command whatever it is reading.
//
// It imports no other package of the project.
package budget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// The budgets of a settings file (schedules.yaml, and the rate card as it
// comes): the whole file and a line.
const (
	SettingsFile = 1 << 20
	SettingsLine = 64 << 10
)

// Error is an input refused for going beyond a budget.
type Error struct {
	Input  string // the file as it was named, or "-" for standard input
	Line   int    // the line where it went beyond (0: the input as a whole)
	Reason string // what went beyond which budget
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Input, e.Line, e.Reason)
	}
	return e.Input + ": " + e.Reason
}

// Size renders a number of bytes for a message: "16 MiB", "64 KiB",
// "2.0 GiB" (whole units without a decimal).
func Size(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	u, f := 0, float64(n)
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	if f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10) + " " + units[u]
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + units[u]
}

// Regular checks, without opening it, that path names a regular file of
// at most max bytes (what names the kind of input in the message: "a bulk
// input file"). A FIFO or a device is refused: its open or its reads may
// never end, and a settings or input file is read again later. The error
// of a missing file is os.Stat's.
func Regular(path string, max int64, what string) (os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	switch {
	case st.IsDir():
		return nil, &Error{Input: path, Reason: "a directory, not " + what}
	case !st.Mode().IsRegular():
		return nil, &Error{Input: path, Reason: fmt.Sprintf("not a regular file (%s): %s must be a file", kind(st.Mode()), what)}
	case st.Size() > max:
		return nil, &Error{Input: path, Reason: fmt.Sprintf("%s: more than the %s %s may hold", Size(st.Size()), Size(max), what)}
	}
	return st, nil
}

// kind names a file type that is not a regular file.
func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// ReadFile reads a whole regular file of at most max bytes (Regular). A
// file that grew past max since it was checked is refused too.
func ReadFile(path string, max int64, what string) ([]byte, error) {
	if _, err := Regular(path, max, what); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &Error{Input: path, Reason: fmt.Sprintf("more than the %s %s may hold", Size(max), what)}
	}
	return data, nil
}

// LongLine returns the number (from 1) of the first line of data longer
// than max bytes, its line break not counted; 0 when there is none.
func LongLine(data []byte, max int) int {
	for n := 1; len(data) > 0; n++ {
		end := len(data)
		for i, c := range data {
			if c == '\n' {
				end = i
				break
			}
			if i >= max {
				return n
			}
		}
		if end > max {
			return n
		}
		if end == len(data) {
			return 0
		}
		data = data[end+1:]
	}
	return 0
}

// Open opens a file for reading. It gives up when ctx ends first, with an
// *os.PathError wrapping the context's error: the open of a FIFO blocks
// until a writer opens it, and may never return (it is then left to end
// with the process, and the file closed if it opens).
func Open(ctx context.Context, path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return os.Open(path) // never blocks
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, &os.PathError{Op: "open", Path: path, Err: ctx.Err()}
	}
}

// ErrOver is the error of a LimitReader read past its budget.
var ErrOver = errors.New("beyond the budget of the input")

// LimitReader reads r until n bytes were read; a read past them fails with
// ErrOver (io.LimitReader would end the input there as if it were whole).
func LimitReader(r io.Reader, n int64) io.Reader { return &limitReader{r: r, left: n} }

type limitReader struct {
	r    io.Reader
	left int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if l.left <= 0 {
		if n, err := l.r.Read(p[:1]); n == 0 {
			return 0, err // the input ended right at the budget
		}
		return 0, ErrOver
	}
	n, err := l.r.Read(p[:min(int64(len(p)), l.left)])
	l.left -= int64(n)
	return n, err
}

// maxRead bounds one read of a Reader, so that its buffer stays small
// whatever its callers ask for.
const maxRead = 256 << 10

// Reader returns a reader of r whose Read returns the context's error as
// soon as ctx ends, even while a read of r blocks (standard input, a pipe,
// a FIFO: a read the kernel holds until data comes). r is read by a
// goroutine, one read at a time; a read still blocked when ctx ends is
// left to end with the process, and its data is dropped.
func Reader(ctx context.Context, r io.Reader) io.Reader {
	if ctx.Done() == nil {
		return r
	}
	return &ctxReader{ctx: ctx, r: r, done: make(chan readResult, 1)}
}

type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	buf  []byte // the buffer of the reads; dropped when ctx ends during one
	done chan readResult
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err // also after a read left blocked: c.buf is its own
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) > maxRead {
		p = p[:maxRead]
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	go func() {
		n, err := c.r.Read(buf)
		c.done <- readResult{n, err}
	}()
	select {
	case res := <-c.done:
		return copy(p, buf[:res.n]), res.err
	case <-c.ctx.Done():
		c.buf = nil
		return 0, c.ctx.Err()
	}
}
