package calllog

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// This file decodes a chunk of call-log lines (importer.go's workers) and
// keeps each line for audit: a line read from a file stays there, named by
// its byte offset and length and checked by its SHA-256; a line read from a
// stream or made by svcrecon is kept redacted in a deflate block in the
// database. Show reads either back.

var bom = []byte("\ufeff")

// trimLine returns the bounds of a raw line's content as a call: without
// surrounding white space and a byte-order mark. blank says the line holds
// only white space (not even a byte-order mark).
func trimLine(raw []byte) (start, end int, blank bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return 0, 0, true
	}
	start = bytes.Index(raw, t)
	end = start + len(t)
	if bytes.HasPrefix(t, bom) {
		u := bytes.TrimSpace(t[len(bom):])
		if len(u) == 0 {
			return start + len(bom), start + len(bom), false
		}
		start = start + len(bom) + bytes.Index(t[len(bom):], u)
		end = start + len(u)
	}
	return start, end, false
}

// decode reads the chunk's lines into calls (src: the file's call_sources
// id, 0 for a stream; maxLine: the budget of a line) and releases its
// bytes.
func (c *chunk) decode(name string, src int64, secrets []string, maxLine int) {
	long := "line longer than " + budget.Size(int64(maxLine))
	if c.long {
		c.lines = []lineResult{{n: c.first, reason: long}}
		return
	}
	var block bytes.Buffer
	data := c.data
	c.size = int64(len(data))
	n := c.first
	for pos := 0; pos < len(data); n++ {
		end := len(data)
		if j := bytes.IndexByte(data[pos:], '\n'); j >= 0 {
			end = pos + j
		}
		raw := data[pos:end]
		from := pos
		pos = end + 1
		if len(raw) > maxLine { // read whole in a large read: still a bad line
			c.lines = append(c.lines, lineResult{n: n, reason: long})
			continue
		}
		start, stop, blank := trimLine(raw)
		if blank {
			continue
		}
		l := raw[start:stop]
		call, err := readCall(l, secrets)
		if err != nil {
			c.lines = append(c.lines, lineResult{n: n, reason: err.Error()})
			continue
		}
		call.Source, call.Line = name, n
		keepDocuments(&call)
		if src != 0 {
			call.SourceID, call.Offset, call.Length = src, c.offset+int64(from+start), int64(stop-start)
		} else {
			kept := redactedLine(l, call.Operation, secrets)
			call.Offset, call.Length = int64(block.Len()), int64(len(kept))
			block.Write(kept)
			block.WriteByte('\n')
		}
		c.lines = append(c.lines, lineResult{n: n, call: call})
	}
	c.next = n
	if block.Len() > 0 {
		blk := &recon.LineBlock{Data: deflate(block.Bytes())}
		for i := range c.lines {
			if c.lines[i].reason == "" {
				c.lines[i].call.Block = blk
			}
		}
	}
	c.data = nil
}

// keepDocuments drops the documents a calls row does not keep (the line
// holds them): only a transaction-status look-up keeps its answer, which
// the check reads.
func keepDocuments(c *recon.Call) {
	c.Request = nil
	if c.Operation != svcapi.OpTxnStatus {
		c.Response = nil
	}
}

// redactedLine is a line as the database may keep it: sensitive values
// removed or masked and the secrets replaced (svcapi.RedactJSON), Aadhaar
// numbers in its free text masked (redact.AadhaarJSON), and the data of a
// read-only operation's answer left out.
func redactedLine(l []byte, op string, secrets []string) []byte {
	out := l
	if needsRedact(l, secrets) {
		out = svcapi.RedactJSON(l, secrets...)
	}
	if o, ok := svcapi.Lookup(op); ok && !o.LogsData() && bytes.Contains(out, []byte(`"data"`)) {
		var m map[string]json.RawMessage
		if json.Unmarshal(out, &m) == nil && m["response"] != nil {
			m["response"] = svcapi.WithoutData(m["response"])
			if b, err := json.Marshal(m); err == nil {
				out = b
			}
		}
	}
	return redact.AadhaarJSON(out)
}

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(io.Discard, flate.BestSpeed)
	return w
}}

// deflate compresses b.
func deflate(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b) / 3)
	w := deflaters.Get().(*flate.Writer)
	w.Reset(&out)
	w.Write(b)
	w.Close()
	deflaters.Put(w)
	return out.Bytes()
}

// oneBlock keeps a single line in a block of its own (svcrecon's own calls).
func oneBlock(c *recon.Call, kept []byte) {
	c.Block = &recon.LineBlock{Data: deflate(append(kept, '\n'))}
	c.Offset, c.Length = 0, int64(len(kept))
}

// Reader reads the calls `reconcile calls show` prints; *store.DB
// implements it.
type Reader interface {
	StoredCalls(ctx context.Context, ref string) ([]store.StoredCall, error)
}

var _ Reader = (*store.DB)(nil)

// ErrLineChanged is wrapped by Show when a call's file no longer holds
// its line (the file was edited, truncated or replaced since the import).
var ErrLineChanged = errors.New("the file no longer holds the line (its SHA-256 differs): it changed since the import")

// Entry is a stored call and its line, redacted, as `reconcile calls show`
// prints it.
type Entry struct {
	store.StoredCall
	Line  []byte // the redacted line
	Where string // where the line was read from: "file PATH at byte N", "database"
}

// Show returns the calls named by ref (a call id or an externalRef),
// each with its line: read from the database, or from its file (checked
// against the SHA-256 taken at the import) and redacted with secrets. A
// call stored before lines were kept gets a line made of its stored
// fields and documents. Every line has the Aadhaar numbers of its free
// text masked, those kept before they were too. The error names a call
// whose line cannot be read.
func Show(ctx context.Context, db Reader, ref string, secrets []string) ([]Entry, error) {
	calls, err := db.StoredCalls(ctx, ref)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(calls))
	for _, c := range calls {
		s := Entry{StoredCall: c}
		switch {
		case c.Block != nil:
			s.Line, err = blockLine(c.Block, c.Offset, c.Length)
			s.Where = "database"
		case c.File != "":
			s.Line, err = fileLine(c)
			if err == nil {
				s.Line = redactedLine(s.Line, c.Operation, secrets)
			}
			s.Where = fmt.Sprintf("file %s at byte %d", c.File, c.Offset)
		default:
			s.Line, err = legacyLine(c)
			s.Where = "database (stored fields: imported before lines were kept)"
		}
		if err != nil {
			return out, fmt.Errorf("call %d: %w", c.ID, err)
		}
		s.Line = redact.AadhaarJSON(s.Line)
		out = append(out, s)
	}
	return out, nil
}

// blockLine inflates a block and returns the line at offset.
func blockLine(block []byte, offset, length int64) ([]byte, error) {
	zr := flate.NewReader(bytes.NewReader(block))
	defer zr.Close()
	if _, err := io.CopyN(io.Discard, zr, offset); err != nil {
		return nil, fmt.Errorf("read stored line: %w", err)
	}
	line := make([]byte, length)
	if _, err := io.ReadFull(zr, line); err != nil {
		return nil, fmt.Errorf("read stored line: %w", err)
	}
	return line, nil
}

// fileLine reads a call's line back from its file and checks it. A file
// that is no longer a regular file (a FIFO's open and reads may never
// end) no longer holds the line.
func fileLine(c store.StoredCall) ([]byte, error) {
	if st, err := os.Stat(c.File); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", c.File, ErrLineChanged)
	}
	f, err := os.Open(c.File)
	if err != nil {
		return nil, fmt.Errorf("read the line from its file: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if c.Gzip {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.File, ErrLineChanged)
		}
		defer zr.Close()
		r = zr
	} else if _, err := f.Seek(c.Offset, io.SeekStart); err != nil {
		return nil, err
	}
	if c.Gzip {
		if _, err := io.CopyN(io.Discard, r, c.Offset); err != nil {
			return nil, fmt.Errorf("%s: %w", c.File, ErrLineChanged)
		}
	}
	line := make([]byte, c.Length)
	if _, err := io.ReadFull(r, line); err != nil {
		return nil, fmt.Errorf("%s: %w", c.File, ErrLineChanged)
	}
	sum := sha256.Sum256(line)
	if hex.EncodeToString(sum[:]) != c.Hash {
		return nil, fmt.Errorf("%s: %w", c.File, ErrLineChanged)
	}
	return line, nil
}

// legacyLine rebuilds a line from a call stored with its documents.
func legacyLine(c store.StoredCall) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(k string, v []byte) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		b.Write(v)
	}
	text := func(s string) []byte { q, _ := json.Marshal(s); return q }
	field("at", text(c.Fields["at"]))
	field("operation", text(c.Operation))
	field("method", text(c.Fields["method"]))
	field("path", text(c.Fields["path"]))
	field("externalRef", text(c.ExternalRef))
	if json.Valid(c.Request) {
		field("request", c.Request)
	}
	field("httpStatus", []byte(c.Fields["httpStatus"]))
	field("latencyMs", []byte(c.Fields["latencyMs"]))
	if json.Valid(c.Response) {
		field("response", c.Response)
	}
	field("error", text(c.Fields["error"]))
	b.WriteByte('}')
	return b.Bytes(), nil
}
