package export

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
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
	zw  *zip.Writer
	cur *zipEntry // the part being written
}

// newZipWriter writes a zip file to w, its parts deflated at BestSpeed.
func newZipWriter(w io.Writer) *zipWriter {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	return &zipWriter{zw: zw}
}

// Create starts the part name, ending the one before.
func (z *zipWriter) Create(name string) (io.Writer, error) {
	if err := z.end(); err != nil {
		return nil, err
	}
	z.cur = &zipEntry{zw: z.zw, name: name}
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
	zw   *zip.Writer
	name string
	buf  []byte // the block being filled
	p    *parallelDeflate
}

func (e *zipEntry) Write(b []byte) (int, error) {
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
		p, err := newParallelDeflate(e.zw, e.name)
		if err != nil {
			return err
		}
		e.p = p
	}
	b := e.buf
	e.buf = nil
	e.p.add(b, false)
	return nil
}

// end writes what is left of the part.
func (e *zipEntry) end() error {
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
	return e.p.close()
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

// parallelDeflate writes one zip part of blocks deflated at once: each
// block goes to a goroutine of its own (at most 2 × GOMAXPROCS at a time)
// and the results are written in order by a goroutine that writes the
// part. The part's CRC-32 and sizes follow it in a data descriptor.
type parallelDeflate struct {
	fh    *zip.FileHeader
	crc   uint32
	size  uint64
	order chan chan *bytes.Buffer // each block's result, in order
	done  chan error              // the writer's end
	wrote uint64                  // compressed bytes written (the writer's; read after done)
}

func newParallelDeflate(zw *zip.Writer, name string) (*parallelDeflate, error) {
	fh := &zip.FileHeader{Name: name, Method: zip.Deflate, Flags: 0x8, // sizes and CRC after the data
		CreatorVersion: 20, ReaderVersion: 20} // as zip.Writer.Create writes them
	raw, err := zw.CreateRaw(fh)
	if err != nil {
		return nil, err
	}
	p := &parallelDeflate{fh: fh, order: make(chan chan *bytes.Buffer, 2*runtime.GOMAXPROCS(0)), done: make(chan error, 1)}
	go p.write(raw)
	return p, nil
}

// write writes the deflated blocks in order; after an error it drains
// them.
func (p *parallelDeflate) write(raw io.Writer) {
	var err error
	for res := range p.order {
		out := <-res
		if err == nil {
			var n int
			n, err = raw.Write(out.Bytes())
			p.wrote += uint64(n)
		}
		outs.Put(out)
	}
	p.done <- err
}

var outs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// add deflates block b (the part's last when final) in a goroutine of
// its own; it waits while 2 × GOMAXPROCS blocks are on their way. A
// failure to write is close's to return.
func (p *parallelDeflate) add(b []byte, final bool) {
	p.crc = crc32.Update(p.crc, crc32.IEEETable, b)
	p.size += uint64(len(b))
	res := make(chan *bytes.Buffer, 1)
	p.order <- res
	go func() {
		out := outs.Get().(*bytes.Buffer)
		out.Reset()
		fw := deflaters.Get().(*flate.Writer)
		fw.Reset(out)
		fw.Write(b) // a bytes.Buffer does not fail
		if final {
			fw.Close()
		} else {
			fw.Flush()
		}
		deflaters.Put(fw)
		putBlock(b)
		res <- out
	}()
}

// close waits for the last block and sets the part's CRC-32 and sizes,
// which zip.Writer writes after it (data descriptor) and in the directory.
func (p *parallelDeflate) close() error {
	close(p.order)
	if err := <-p.done; err != nil {
		return err
	}
	fh := p.fh
	fh.CRC32, fh.CompressedSize64, fh.UncompressedSize64 = p.crc, p.wrote, p.size
	// The data descriptor of a raw part takes its sizes from the 32-bit
	// fields, which zip.Writer sets itself only for the parts it deflates.
	c32, u32 := uint32(p.wrote), uint32(p.size)
	if p.wrote >= math.MaxUint32 || p.size >= math.MaxUint32 { // as zip.Writer does for a part over 4 GiB
		c32, u32, fh.ReaderVersion = math.MaxUint32, math.MaxUint32, 45
	}
	//lint:ignore SA1019 the data descriptor reads them (see above)
	fh.CompressedSize, fh.UncompressedSize = c32, u32
	return nil
}
