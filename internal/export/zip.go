package export

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"runtime"
	"sync"
)

// The workbook's zip: excelize hands each part of the workbook to a
// zipWriter (Writer.Finish sets it with SetZipWriter), which deflates it
// at BestSpeed (about three times faster than the default level, for a
// file about a fifth larger). A part larger than zipBlock (the streamed
// sheets: hundreds of MB of XML for a million rows) is cut into blocks of
// zipBlock bytes deflated on every CPU at once; each block but the last
// ends with a sync flush (an empty stored block, byte-aligned), so that
// the blocks put end to end are one deflate stream, as pigz and pgzip
// write it. A block starts without the previous one's window: at BestSpeed
// compress/flate uses no preset dictionary anyway, and a block of 1 MiB
// loses a few hundred bytes by it.
const zipBlock = 1 << 20

// zipWriter is excelize.ZipWriter on a zip.Writer.
type zipWriter struct {
	zw   *zip.Writer
	cur  *zipEntry             // the part being written
	rows map[string]*sheetRows // the rows of streamed sheets, by part name
}

// newZipWriter writes a zip file to w, its parts deflated at BestSpeed;
// the part of a sheet named in rows gets those rows (see sheetRows).
func newZipWriter(w io.Writer, rows map[string]*sheetRows) *zipWriter {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	return &zipWriter{zw: zw, rows: rows}
}

// Create starts the part name, ending the one before.
func (z *zipWriter) Create(name string) (io.Writer, error) {
	if err := z.end(); err != nil {
		return nil, err
	}
	z.cur = &zipEntry{zw: z.zw, name: name, rows: z.rows[name]}
	return z.cur, nil
}

// AddFS adds the files of fsys.
func (z *zipWriter) AddFS(fsys fs.FS) error {
	if err := z.end(); err != nil {
		return err
	}
	return z.zw.AddFS(fsys)
}

// Close ends the last part and writes the zip's directory.
func (z *zipWriter) Close() error {
	return errors.Join(z.end(), z.zw.Close())
}

func (z *zipWriter) end() error {
	if z.cur == nil {
		return nil
	}
	err := z.cur.end()
	z.cur = nil
	return err
}

// zipEntry is one part being written: its first zipBlock bytes are held;
// a part that ends within them is deflated as zip.Writer does, a longer
// one block by block in parallel.
type zipEntry struct {
	zw    *zip.Writer
	name  string
	buf   []byte // the block being filled
	p     *parallelDeflate
	fh    *zip.FileHeader // once parallel
	rows  *sheetRows      // a streamed sheet's rows, to put in this part
	whole bytes.Buffer    // the part, held whole when it gets rows
}

func (e *zipEntry) Write(b []byte) (int, error) {
	if e.rows != nil {
		return e.whole.Write(b)
	}
	n := 0
	for len(b) > 0 {
		if e.buf == nil {
			e.buf = getBlock()
		}
		c := copy(e.buf[len(e.buf):cap(e.buf)], b)
		e.buf, b, n = e.buf[:len(e.buf)+c], b[c:], n+c
		if len(e.buf) == cap(e.buf) {
			if err := e.block(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// ReadFrom reads r into the blocks directly (io.Copy uses it).
func (e *zipEntry) ReadFrom(r io.Reader) (int64, error) {
	if e.rows != nil {
		return e.whole.ReadFrom(r)
	}
	var n int64
	for {
		if e.buf == nil {
			e.buf = getBlock()
		}
		c, err := r.Read(e.buf[len(e.buf):cap(e.buf)])
		e.buf, n = e.buf[:len(e.buf)+c], n+int64(c)
		if len(e.buf) == cap(e.buf) {
			if berr := e.block(); berr != nil {
				return n, berr
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// block hands a full block over to be deflated.
func (e *zipEntry) block() error {
	if e.p == nil {
		fh, w, err := rawPart(e.zw, e.name)
		if err != nil {
			return err
		}
		e.fh, e.p = fh, newParallelDeflate(w)
	}
	b := e.buf
	e.buf = nil
	e.p.add(b, false)
	return nil
}

// end writes what is left of the part.
func (e *zipEntry) end() error {
	if e.rows != nil {
		return e.splice()
	}
	if e.p == nil { // a small part: one block at most
		w, err := e.zw.Create(e.name)
		if err == nil {
			_, err = w.Write(e.buf)
		}
		putBlock(e.buf)
		return err
	}
	b := e.buf
	if b == nil {
		b = getBlock()
	}
	e.buf = nil
	e.p.add(b, true)
	if err := e.p.close(); err != nil {
		return err
	}
	setSizes(e.fh, e.p.crc, e.p.wrote, e.p.size)
	return nil
}

var blocks = sync.Pool{New: func() any { return new([zipBlock]byte) }}

func getBlock() []byte { return blocks.Get().(*[zipBlock]byte)[:0] }

func putBlock(b []byte) {
	if cap(b) == zipBlock {
		blocks.Put((*[zipBlock]byte)(b[:zipBlock]))
	}
}

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(io.Discard, flate.BestSpeed) // BestSpeed is a valid level
	return w
}}

// parallelDeflate deflates a stream of blocks at once and writes them in
// order to w: each block goes to a goroutine of its own (at most 2 ×
// GOMAXPROCS at a time) and a goroutine writes the results. It keeps the
// stream's CRC-32 and sizes.
type parallelDeflate struct {
	crc   uint32
	size  uint64
	order chan chan *bytes.Buffer // each block's result, in order
	done  chan error              // the writer's end
	wrote uint64                  // compressed bytes written (the writer's; read after done)
}

func newParallelDeflate(w io.Writer) *parallelDeflate {
	p := &parallelDeflate{order: make(chan chan *bytes.Buffer, 2*runtime.GOMAXPROCS(0)), done: make(chan error, 1)}
	go p.write(w)
	return p
}

// write writes the deflated blocks in order; after an error it drains
// them.
func (p *parallelDeflate) write(w io.Writer) {
	var err error
	for res := range p.order {
		out := <-res
		if err == nil {
			var n int
			n, err = w.Write(out.Bytes())
			p.wrote += uint64(n)
		}
		outs.Put(out)
	}
	p.done <- err
}

var outs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// add deflates block b (the stream's last when final) in a goroutine of
// its own, and takes b (returned to the pool of blocks when deflated); it
// waits while 2 × GOMAXPROCS blocks are on their way. A failure to write
// is close's to return.
func (p *parallelDeflate) add(b []byte, final bool) {
	p.crc = crc32.Update(p.crc, crc32.IEEETable, b)
	p.size += uint64(len(b))
	res := make(chan *bytes.Buffer, 1)
	p.order <- res
	go func() {
		out := outs.Get().(*bytes.Buffer)
		out.Reset()
		deflate(out, b, final)
		putBlock(b)
		res <- out
	}()
}

// close waits for the last block to be written.
func (p *parallelDeflate) close() error {
	close(p.order)
	return <-p.done
}

// deflate appends b deflated at BestSpeed to out: closed when final (the
// stream's last block), else flushed (byte-aligned, to be continued).
func deflate(out *bytes.Buffer, b []byte, final bool) {
	fw := deflaters.Get().(*flate.Writer)
	fw.Reset(out)
	fw.Write(b) // a bytes.Buffer does not fail
	if final {
		fw.Close()
	} else {
		fw.Flush()
	}
	deflaters.Put(fw)
}

// rawPart starts a zip part whose data the caller deflates: its CRC-32
// and sizes follow the data (setSizes, before the next part).
func rawPart(zw *zip.Writer, name string) (*zip.FileHeader, io.Writer, error) {
	fh := &zip.FileHeader{Name: name, Method: zip.Deflate, Flags: 0x8, // sizes and CRC after the data
		CreatorVersion: 20, ReaderVersion: 20} // as zip.Writer.Create writes them
	w, err := zw.CreateRaw(fh)
	return fh, w, err
}

// setSizes sets a raw part's CRC-32 and sizes, which zip.Writer writes
// after it (data descriptor) and in the directory.
func setSizes(fh *zip.FileHeader, crc uint32, compressed, size uint64) {
	fh.CRC32, fh.CompressedSize64, fh.UncompressedSize64 = crc, compressed, size
	// The data descriptor of a raw part takes its sizes from the 32-bit
	// fields, which zip.Writer sets itself only for the parts it deflates.
	c32, u32 := uint32(compressed), uint32(size)
	if compressed >= math.MaxUint32 || size >= math.MaxUint32 { // as zip.Writer does for a part over 4 GiB
		c32, u32, fh.ReaderVersion = math.MaxUint32, math.MaxUint32, 45
	}
	//lint:ignore SA1019 the data descriptor reads them (see above)
	fh.CompressedSize, fh.UncompressedSize = c32, u32
}

// splice writes a streamed sheet's part with its rows: the sheet as
// excelize wrote it (its header row alone) up to </sheetData>, deflated,
// then the rows, deflated as they were written, then the rest of the
// sheet: one deflate stream, each piece but the last ending on a byte
// boundary (a sync flush).
func (e *zipEntry) splice() error {
	data := e.whole.Bytes()
	i := bytes.LastIndex(data, []byte("</sheetData>"))
	if i < 0 {
		return fmt.Errorf("%s: no </sheetData> to put its rows before", e.name)
	}
	fh, w, err := rawPart(e.zw, e.name)
	if err != nil {
		return err
	}
	head, tail := data[:i], data[i:]
	var out bytes.Buffer
	deflate(&out, head, false)
	n := uint64(out.Len())
	if _, err := w.Write(out.Bytes()); err != nil {
		return err
	}
	if err := e.rows.copyTo(w); err != nil {
		return fmt.Errorf("%s: %w", e.name, err)
	}
	out.Reset()
	deflate(&out, tail, true)
	n += e.rows.zsize + uint64(out.Len())
	if _, err := w.Write(out.Bytes()); err != nil {
		return err
	}
	crc := crc32.ChecksumIEEE(head)
	crc = crc32Combine(crc, e.rows.crc, e.rows.size)
	crc = crc32Combine(crc, crc32.ChecksumIEEE(tail), uint64(len(tail)))
	setSizes(fh, crc, n, uint64(len(data))+e.rows.size)
	e.rows.placed = true
	return nil
}

// crc32Combine is the CRC-32 (IEEE) of a stream a, b from crc1 of a and
// crc2 of b, n2 bytes long: zlib's crc32_combine (multiplying by x^(8·n2)
// modulo the polynomial, by repeated squaring of the matrix of one zero
// bit).
func crc32Combine(crc1, crc2 uint32, n2 uint64) uint32 {
	if n2 == 0 {
		return crc1
	}
	var even, odd [32]uint32 // operators for 2^k zero bits
	odd[0] = crc32.IEEE
	for i, row := 1, uint32(1); i < 32; i, row = i+1, row<<1 {
		odd[i] = row
	}
	gf2Square(&even, &odd) // 2 zero bits
	gf2Square(&odd, &even) // 4 zero bits
	for {
		gf2Square(&even, &odd) // then 8, 32, 128 … zero bits: a byte, 4, 16 …
		if n2&1 != 0 {
			crc1 = gf2Times(&even, crc1)
		}
		if n2 >>= 1; n2 == 0 {
			break
		}
		gf2Square(&odd, &even)
		if n2&1 != 0 {
			crc1 = gf2Times(&odd, crc1)
		}
		if n2 >>= 1; n2 == 0 {
			break
		}
	}
	return crc1 ^ crc2
}

func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

func gf2Square(square, mat *[32]uint32) {
	for i := range mat {
		square[i] = gf2Times(mat, mat[i])
	}
}

// sheetRows are the rows of one streamed sheet (after its header),
// deflated in blocks as they are written (parallelDeflate, every block
// flushed, none final) into a temporary file: the disk holds what the
// workbook will hold, not the XML (six times as much), and the deflating
// is done while the rows are made. excelize writes the sheet itself
// (its header row, column widths, panes, table, print setup) with its
// StreamWriter; the zip writer puts the rows in (zipEntry.splice). The
// file is a temporary file of the workbook's (.BOOK.<digits>.partial in
// its directory: see create), removed when the workbook is written or
// abandoned, or by the next export of the same workbook if the process
// was killed.
type sheetRows struct {
	out    *output
	p      *parallelDeflate
	buf    []byte // the block being filled
	crc    uint32 // of the rows' XML, once closed
	size   uint64 // bytes of XML
	zsize  uint64 // bytes deflated
	closed bool
	placed bool // put in its part
}

// newSheetRows starts the rows of a sheet of the workbook book in dir.
func newSheetRows(dir, book string, log *slog.Logger) (*sheetRows, error) {
	out, err := create(dir, book, log)
	if err != nil {
		return nil, err
	}
	return &sheetRows{out: out, p: newParallelDeflate(out.f)}, nil
}

// write adds rows' XML.
func (s *sheetRows) write(b []byte) {
	for len(b) > 0 {
		if s.buf == nil {
			s.buf = getBlock()
		}
		c := copy(s.buf[len(s.buf):cap(s.buf)], b)
		s.buf, b = s.buf[:len(s.buf)+c], b[c:]
		if len(s.buf) == cap(s.buf) {
			s.p.add(s.buf, false)
			s.buf = nil
		}
	}
}

// close deflates what is left and waits until all is in the file.
func (s *sheetRows) close() error {
	s.closed = true
	if len(s.buf) > 0 {
		s.p.add(s.buf, false)
		s.buf = nil
	}
	err := s.p.close()
	s.crc, s.size, s.zsize = s.p.crc, s.p.size, s.p.wrote
	if err != nil {
		return fmt.Errorf("rows' temporary file: %w", err)
	}
	return nil
}

// copyTo copies the deflated rows to w.
func (s *sheetRows) copyTo(w io.Writer) error {
	n, err := io.Copy(w, io.NewSectionReader(s.out.f, 0, int64(s.zsize)))
	if err == nil && uint64(n) != s.zsize {
		err = fmt.Errorf("rows' temporary file: %d bytes of %d", n, s.zsize)
	}
	return err
}

// remove removes the temporary file (closing the rows first if need be).
func (s *sheetRows) remove() {
	if !s.closed {
		s.close()
	}
	s.out.discard()
}
