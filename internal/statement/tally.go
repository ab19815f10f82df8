package statement

import "fmt"

// tally is what the pages of one walk (of a window, or of the biller
// list) said of the count they should add up to, checked page by page, so
// that a service that stops early, withdraws records under the walk or
// never stops cannot leave a day that looks complete:
//
//   - the count is the largest meta.totalRecords of the walk's pages, not
//     the last page's: a page past the end may say 0 or nothing, and a walk
//     cut short would then pass for complete;
//   - a page counting fewer records than an earlier page of the walk means
//     records were withdrawn meanwhile. With offset paging the records after
//     a withdrawn one move up a place, one of them may never be served while
//     the withdrawn one stays held, and the counts agree: such a walk is not
//     trusted (dropped; walked again);
//   - a service serving more than twice its count and a page more (a page
//     served again and again, pages that never end) is stopped, and so is a
//     page identical to the one before it (the page number ignored), long
//     before maxPages.
type tally struct {
	count   int64 // the largest meta.totalRecords of the walk's pages; 0: none said one
	latest  int64 // the last page's count that said one
	dropped bool  // a page counted fewer records than an earlier page
	fell    [2]int64
	served  int64 // records served by the walk's pages
	prev    pageKey
}

// pageKey is what two pages are compared by: their size and their first
// and last records.
type pageKey struct {
	n           int
	first, last string
}

// page adds a page's count (meta.totalRecords, 0 when it said none) and
// its records (key), of a walk asking perPage records a page; what names
// the walk and its page ("statement window 2026-11-03 page 7"). again is
// true for a page that repeats the one before it once the walk was served
// its count: a service serving its last page again past the end (as many
// do), which ends the walk. It returns an error when the service repeats a
// page before that (the page number ignored) or serves beyond what it
// counts.
func (t *tally) page(what string, total int64, key pageKey, perPage int) (again bool, err error) {
	if total > 0 {
		if total < t.count && !t.dropped {
			t.dropped, t.fell = true, [2]int64{t.count, total}
		}
		t.count, t.latest = max(t.count, total), total
	}
	if key.n > 0 && key == t.prev {
		if t.count > 0 && t.served >= t.count {
			return true, nil
		}
		return false, fmt.Errorf("%s repeats the page before it (the same %d records): the service ignores the page number", what, key.n)
	}
	t.prev = key
	t.served += int64(key.n)
	if t.count > 0 && t.served > 2*t.count+int64(perPage) {
		return false, fmt.Errorf("%s: %d records served, the service counts %d: its pages do not end", what, t.served, t.count)
	}
	return false, nil
}

// says is the count the service says now: its largest, unless it fell
// (then the last it said).
func (t *tally) says() int64 {
	if t.dropped {
		return t.latest
	}
	return t.count
}

// fallen says how the count fell during the walk, for a problem's text.
func (t *tally) fallen() string {
	if !t.dropped {
		return ""
	}
	return fmt.Sprintf("the service's count fell from %d to %d while its pages were walked: a record may have been skipped", t.fell[0], t.fell[1])
}
