package export

import (
	"sync"
	"sync/atomic"

	"github.com/xuri/excelize/v2"
)

// A table's rows go to its sheet and its CSV file at once: the goroutine
// that reads them (Writer.Write's, the database's own reading ahead in
// another) makes each row's cell values and styles and its CSV record,
// and hands them over in batches to two writers, each a goroutine of its
// own (the sheet's StreamWriter, the CSV file). On two cores the sheet's
// writer, the slowest, has a core nearly to itself. The batches are few
// and reused: a table write holds at most pipeBatches of them, however
// long the table.
const (
	batchRows   = 256 // rows a batch
	pipeBatches = 8   // batches a table write holds
)

// rowBatch is rows on their way to the writers.
type rowBatch struct {
	n      int
	vals   [][]any // each row's sheet values: &cells[i][j], or nil (no cell)
	cells  [][]excelize.Cell
	height []float64 // each row's height (0: the default)
	recs   [][]string
	left   atomic.Int32 // writers still to write it
}

func newRowBatch(cols int, xlsx, csv bool) *rowBatch {
	b := &rowBatch{}
	if xlsx {
		b.vals, b.cells, b.height = make([][]any, batchRows), make([][]excelize.Cell, batchRows), make([]float64, batchRows)
		cells, vals := make([]excelize.Cell, batchRows*cols), make([]any, batchRows*cols)
		for i := range batchRows {
			b.cells[i], b.vals[i] = cells[i*cols:(i+1)*cols:(i+1)*cols], vals[i*cols:(i+1)*cols:(i+1)*cols]
		}
	}
	if csv {
		b.recs = make([][]string, batchRows)
		recs := make([]string, batchRows*cols)
		for i := range batchRows {
			b.recs[i] = recs[i*cols : (i+1)*cols : (i+1)*cols]
		}
	}
	return b
}

// pipe hands batches of rows to its writers.
type pipe struct {
	free    chan *rowBatch
	writers []*pipeWriter
	cur     *rowBatch
	failed  atomic.Bool
	wg      sync.WaitGroup
}

// pipeWriter is one writer of a pipe: write writes a batch; its first
// error stops it (and the pipe).
type pipeWriter struct {
	in    chan *rowBatch
	write func(b *rowBatch) error
	err   error
}

// newPipe starts a goroutine for each writer; batches have cols columns,
// sheet values when xlsx and CSV records when csv.
func newPipe(cols int, xlsx, csv bool, writers ...func(b *rowBatch) error) *pipe {
	p := &pipe{free: make(chan *rowBatch, pipeBatches)}
	for range pipeBatches {
		p.free <- newRowBatch(cols, xlsx, csv)
	}
	for _, fn := range writers {
		w := &pipeWriter{in: make(chan *rowBatch, pipeBatches), write: fn}
		p.writers = append(p.writers, w)
		p.wg.Go(func() {
			for b := range w.in {
				if w.err == nil && !p.failed.Load() {
					if w.err = w.write(b); w.err != nil {
						p.failed.Store(true)
					}
				}
				if b.left.Add(-1) == 0 {
					b.n = 0
					p.free <- b
				}
			}
		})
	}
	return p
}

// next is the batch to fill, its row b.n the next; ok is false once a
// writer failed (close returns its error).
func (p *pipe) next() (b *rowBatch, ok bool) {
	if p.failed.Load() {
		return nil, false
	}
	if p.cur == nil {
		p.cur = <-p.free
	}
	return p.cur, true
}

// filled counts the row just made in the current batch and sends the
// batch when it is full.
func (p *pipe) filled() {
	if p.cur.n++; p.cur.n == batchRows {
		p.send()
	}
}

func (p *pipe) send() {
	b := p.cur
	p.cur = nil
	b.left.Store(int32(len(p.writers)))
	for _, w := range p.writers {
		w.in <- b
	}
}

// close sends what is left, waits for the writers and returns the first
// error of one.
func (p *pipe) close() error {
	if p.cur != nil && p.cur.n > 0 && !p.failed.Load() {
		p.send()
	}
	for _, w := range p.writers {
		close(w.in)
	}
	p.wg.Wait()
	for _, w := range p.writers {
		if w.err != nil {
			return w.err
		}
	}
	return nil
}
