package store

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"testing"
)

// TestPrefetchRecyclesBatches: values come out in order and intact across
// many batches, though the batches are reused (a value is a struct with a
// string and a slice, as a call is), and the stream's error comes last.
func TestPrefetchRecyclesBatches(t *testing.T) {
	type row struct {
		n    int
		s    string
		data []byte
	}
	const total = 10*prefetchBatch + 7
	boom := errors.New("boom")
	seq := func(yield func(row, error) bool) {
		for i := range total {
			if !yield(row{n: i, s: strconv.Itoa(i), data: []byte{byte(i)}}, nil) {
				return
			}
		}
		yield(row{}, boom)
	}
	var kept []row
	n := 0
	var last error
	for r, err := range prefetch(context.Background(), iter.Seq2[row, error](seq)) {
		if err != nil {
			last = err
			break
		}
		if r.n != n || r.s != strconv.Itoa(n) || len(r.data) != 1 || r.data[0] != byte(n) {
			t.Fatalf("value %d came as %+v", n, r)
		}
		if n%prefetchBatch == 3 {
			kept = append(kept, r) // a copy: must not change when its batch is reused
		}
		n++
	}
	if n != total || !errors.Is(last, boom) {
		t.Fatalf("%d values, last error %v; want %d and boom", n, last, total)
	}
	for i, r := range kept {
		if want := i*prefetchBatch + 3; r.n != want || r.s != strconv.Itoa(want) {
			t.Errorf("kept value %d changed to %+v", want, r)
		}
	}
}

// TestPrefetchStopsEarly: a consumer that stops ends the goroutine (the
// iterator returns) without reading the rest.
func TestPrefetchStopsEarly(t *testing.T) {
	read := 0
	seq := func(yield func(int, error) bool) {
		for i := 0; ; i++ {
			read++
			if !yield(i, nil) {
				return
			}
		}
	}
	for v := range prefetch(context.Background(), iter.Seq2[int, error](seq)) {
		if v == 2*prefetchBatch {
			break
		}
	}
	if read > 12*prefetchBatch {
		t.Errorf("the producer read %d values after the consumer stopped at %d", read, 2*prefetchBatch)
	}
}
