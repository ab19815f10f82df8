package statement

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/svcrecon/svcrecon/internal/progress"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// maxPages stops a walk whose service never sends an empty or short page.
const maxPages = 1_000_000

// window is one kind and IST day of the period.
type window struct {
	kind     recon.Kind
	day      string // YYYY-MM-DD
	nextPage int    // page to start at (a resumed walk starts past 1)
	walks    int    // walks started, over all runs
	held     bool   // walked to the end by an earlier run: this run walks it again
	probe    bool   // held and before the recheck days: probed first, walked only if changed
	before   int64  // held: the day's records stored before this run
	count    int64  // resumed: meta.totalRecords at its checkpoint (0: none)
	writer   int    // the writer its pages go to while it walks (writers.take)
}

type syncer struct {
	o         Options
	runID     int64
	writers   *writers
	bar       *progress.Bar
	pages     atomic.Int64
	calls     atomic.Int64
	mu        sync.Mutex
	probs     []WindowProblem
	ended     atomic.Int64 // windows ended: done, mismatch or failed
	probed    atomic.Int64 // held windows probed
	unchanged atomic.Int64 // probed windows whose count had not changed
	rewalked  atomic.Int64 // held windows walked again
	late      atomic.Int64 // records found by walking held windows again
}

// Sync walks every window of the period that is not done yet and stores
// its records. Windows already done (held) are not trusted alone: the last
// Options.RecheckDays days of the period are walked again in full, and each
// older held window is probed with one request for the smallest page (one
// record), whose meta.totalRecords is compared with the records held; a
// window whose count changed is walked again. With Refresh every window is
// walked. It returns when every window has finished, failed or mismatched.
// The error wraps ErrIncomplete when a window (or a probe) failed or still
// mismatches (the Summary lists them); it is the
// context's error when the run was interrupted (pages already fetched are
// kept and the next run resumes after them), the *svcapi.Error or
// *svcapi.ConfigError that stopped the run when the service refused the
// credentials (HTTP 401/403) or a setting is missing, or a database error.
func Sync(ctx context.Context, o Options) (Summary, error) {
	if err := o.defaults(); err != nil {
		return Summary{}, err
	}
	began := time.Now()
	s := &syncer{o: o}
	var sum Summary
	if err := s.startRun(ctx); err != nil {
		return sum, err
	}
	sum.RunID = s.runID
	windows, err := s.plan(ctx)
	if err != nil {
		s.finishRun(ctx, sum, err)
		return sum, err
	}
	probes := 0
	for _, w := range windows {
		if w.probe {
			probes++
		}
	}
	o.Log.InfoContext(ctx, "sync started", recon.LogSyncRun, s.runID, "account", o.Account, "kinds", KindsText(o.Kinds),
		"from", o.From.Format(recon.DateLayout), "to", o.To.Format(recon.DateLayout), "windows", len(windows), "probes", probes)
	if o.Progress != nil {
		// The total is known up front: one unit per window (days × kinds).
		s.bar = progress.New(o.Progress, "sync days", int64(len(windows)), o.Log)
	}
	attempts0 := o.Calls.Attempts()

	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.writers = startWriters(wctx, o.DB, o.Now, 2*o.Concurrency, func(err error) { cancel(err) })

	g, gctx := errgroup.WithContext(wctx)
	g.SetLimit(o.Concurrency)
	for _, w := range windows {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return s.walkWindow(gctx, w) })
	}
	gerr := g.Wait()
	newN, updN, werr := s.writers.close()
	s.bar.Done()

	sum.New, sum.Updated = newN, updN
	sum.Pages = int(s.pages.Load())
	if o.Calls != nil {
		sum.Retries = max(0, int(o.Calls.Attempts()-attempts0-s.calls.Load()))
	}
	sum.Problems = s.probs
	sum.WindowsFailed = len(s.probs)
	sum.Windows = int(s.ended.Load())
	sum.Probed, sum.Unchanged = int(s.probed.Load()), int(s.unchanged.Load())
	sum.Rewalked, sum.Late = int(s.rewalked.Load()), int(s.late.Load())
	sum.WindowsLeft = len(windows) - sum.Windows - sum.Unchanged
	sum.Elapsed = time.Since(began)

	var stop *stopError
	switch {
	case werr != nil:
		err = werr
	case errors.As(gerr, &stop):
		err = fmt.Errorf("sync stopped, no window can succeed: %w", stop.err)
	case gerr != nil:
		err = fmt.Errorf("sync interrupted: %w", gerr)
	case ctx.Err() != nil:
		err = fmt.Errorf("sync interrupted: %w", context.Cause(ctx))
	case len(s.probs) > 0:
		err = fmt.Errorf("%d of %d windows failed or still differ from the service's count: %w",
			len(s.probs), len(windows), ErrIncomplete)
	}
	s.finishRun(ctx, sum, err)
	return sum, err
}

func (s *syncer) startRun(ctx context.Context) error {
	o := s.o
	id, err := o.DB.StartSyncRun(ctx, o.Account, o.Kinds, o.From.Format(recon.DateLayout), o.To.Format(recon.DateLayout), o.Now())
	if err != nil {
		return fmt.Errorf("record sync run: %w", err)
	}
	s.runID = id
	return nil
}

// KindsText is kinds as sync_runs.kinds and the command line write them:
// "statement,orders".
func KindsText(kinds []recon.Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ",")
}

// finishRun records the totals (it writes even when ctx was cancelled)
// and logs them: at ERROR, as not finished, when runErr stopped the sync.
func (s *syncer) finishRun(ctx context.Context, sum Summary, runErr error) {
	res := store.SyncRunResult{State: "ok", New: sum.New, Updated: sum.Updated, Pages: sum.Pages,
		Windows: sum.Windows, WindowsFailed: sum.WindowsFailed, Retries: sum.Retries,
		Probed: sum.Probed, Rewalked: sum.Rewalked, Late: sum.Late}
	if runErr != nil {
		res.State, res.Error = "failed", errText(runErr)
		if errors.Is(runErr, ErrIncomplete) {
			res.State = "partial"
		}
	}
	if err := s.o.DB.FinishSyncRun(context.WithoutCancel(ctx), s.runID, s.o.Now(), res); err != nil {
		s.o.Log.ErrorContext(ctx, "sync run not recorded", recon.LogSyncRun, s.runID, "error", err.Error())
	}
	if runErr != nil {
		s.o.Log.ErrorContext(ctx, "sync did not finish", recon.LogSyncRun, s.runID, "summary", sum.Line())
		return
	}
	s.o.Log.InfoContext(ctx, "sync finished", recon.LogSyncRun, s.runID, "summary", sum.Line())
}

// plan lists the windows of the period, resuming checkpoints. A done
// (held) window is walked again when Refresh, when its day is not over yet
// or when it is one of the last RecheckDays days; otherwise it is probed.
func (s *syncer) plan(ctx context.Context) ([]*window, error) {
	o := s.o
	from, to := o.From.Format(recon.DateLayout), o.To.Format(recon.DateLayout)
	saved := map[store.DayKey]store.SyncWindow{}
	cps, err := o.DB.SyncWindows(ctx, o.Account, from, to)
	if err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	held := false
	for _, c := range cps {
		saved[store.DayKey{Kind: c.Kind, Day: c.Day}] = c
		held = held || c.State == StateDone
	}
	var counts map[store.DayKey]int64
	if held {
		if counts, err = o.DB.DayCounts(ctx, o.Account, from, to); err != nil {
			return nil, fmt.Errorf("count held records: %w", err)
		}
	}
	today := day(o.Now()).Format(recon.DateLayout)
	recheckFrom := o.To.AddDate(0, 0, 1-max(o.RecheckDays, 0)).Format(recon.DateLayout)
	var out []*window
	for d := o.From; !d.After(o.To); d = d.AddDate(0, 0, 1) {
		ds := d.Format(recon.DateLayout)
		for _, k := range o.Kinds {
			key := store.DayKey{Kind: k, Day: ds}
			w := &window{kind: k, day: ds, nextPage: 1}
			if c, ok := saved[key]; ok {
				w.walks = c.Walks
				switch c.State {
				case StateDone:
					w.held, w.before = true, counts[key]
					w.probe = !o.Refresh && ds < today && ds < recheckFrom
				case StateWalking, StateFailed:
					w.nextPage = max(1, c.NextPage)
					if c.Total != nil && w.nextPage > 1 {
						w.count = *c.Total
					}
				}
			}
			out = append(out, w)
		}
	}
	return out, nil
}

func (s *syncer) problem(p WindowProblem) {
	s.mu.Lock()
	s.probs = append(s.probs, p)
	s.mu.Unlock()
}

// walkWindow walks one window until its stored count matches the service's
// total or MaxWalks walks were made this run. A window that fails is
// recorded (checkpoint 'failed', a problem) and nil returned, so that the
// other windows go on; the error is non-nil only when the run is
// interrupted, or stopped (a *stopError) because the service refused the
// credentials or the client lacks a setting: no other window could succeed.
func (s *syncer) walkWindow(ctx context.Context, w *window) error {
	log := s.o.Log.With(LogKind, w.kind, LogDay, w.day)
	if w.probe {
		changed, err := s.probe(ctx, w, log)
		if err != nil || !changed {
			if err == nil {
				s.unchanged.Add(1)
				s.bar.Add(1)
			}
			return err
		}
	}
	if w.held {
		s.rewalked.Add(1)
	}
	w.writer = s.writers.take()
	defer s.writers.done(w.writer)
	err := s.walk(ctx, w, log)
	if err == nil {
		s.ended.Add(1)
		s.bar.Add(1)
	}
	return err
}

// probe asks the service for the smallest page of a held window (one
// record) and reports whether its meta.totalRecords differs from the
// records held. A probe that fails is a problem of the window (its records
// stay held, its checkpoint done) and reports no change; its error is
// non-nil only as walk's is: the run is interrupted or stopped.
func (s *syncer) probe(ctx context.Context, w *window, log *slog.Logger) (bool, error) {
	req := s.request(w)
	req.Pagination = svcapi.Pagination{PageNumber: "1", RecordsPerPage: "1"}
	req.ExternalRef = s.ref(w, "Q", 1)
	s.calls.Add(1)
	s.probed.Add(1)
	pg, err := s.o.Client.Statement(ctx, req)
	if err == nil && pg == nil {
		err = errNoPage
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, context.Cause(ctx)
		}
		if refused(err) {
			return false, &stopError{err}
		}
		err = fmt.Errorf("probe %s window %s: %w", w.kind, w.day, err)
		log.WarnContext(ctx, "probe failed: the held records of the day are not checked", "error", err.Error())
		s.problem(WindowProblem{Kind: w.kind, Day: w.day, State: StateFailed, Page: 1, Err: errText(err)})
		s.ended.Add(1)
		s.bar.Add(1)
		return false, nil
	}
	total := int64(pg.Meta.TotalRecords)
	var changed bool
	switch {
	case total > 0:
		changed = total != w.before
	case len(pg.Records) == 0:
		changed = w.before != 0 // the service says the day is empty
	default:
		changed = true // records without a count: only a walk can tell
	}
	if changed {
		log.InfoContext(ctx, "held day changed at the service: walking it again", LogStored, w.before, LogTotal, total)
	} else {
		log.DebugContext(ctx, "held day unchanged", LogStored, w.before)
	}
	return changed, nil
}

// walk is walkWindow without the count of windows ended.
func (s *syncer) walk(ctx context.Context, w *window, log *slog.Logger) error {
	page := w.nextPage
	for walk := 1; ; walk++ {
		if page == 1 {
			w.walks++
		}
		res, failPage, err := s.walkOnce(ctx, w, page, walk >= s.o.MaxWalks)
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			if refused(err) {
				// Every other window would be refused the same way.
				return &stopError{err}
			}
			log.WarnContext(ctx, "window failed", LogPage, failPage, "error", err.Error())
			s.problem(WindowProblem{Kind: w.kind, Day: w.day, State: StateFailed, Page: failPage, Err: errText(err)})
			var total *int64 // the walk's count, for the walk resumed at failPage
			if res.total > 0 && failPage > 1 {
				total = &res.total
			}
			s.writers.send(w, job{page: store.RecordPage{Window: s.checkpoint(w, StateFailed, failPage, total, w.walks, errText(err))}})
			return nil
		}
		if w.held && res.state != StateWalking {
			s.late.Add(max(0, res.stored-w.before))
		}
		if res.state != StateWalking && s.o.DayEnded != nil {
			s.o.DayEnded(w.kind, w.day)
		}
		switch res.state {
		case StateDone:
			log.DebugContext(ctx, "window done", LogStored, res.stored, LogWalk, w.walks)
			return nil
		case StateMismatch:
			log.WarnContext(ctx, "window still differs from the service's count", LogStored, res.stored, LogTotal, res.total, "walks", walk)
			s.problem(WindowProblem{Kind: w.kind, Day: w.day, State: StateMismatch, Stored: res.stored, Total: res.total, Err: res.why})
			return nil
		}
		if res.why != "" {
			log.InfoContext(ctx, "walking window again: "+res.why, LogStored, res.stored, LogTotal, res.total)
		} else {
			log.InfoContext(ctx, "walking window again: stored count differs from the service's", LogStored, res.stored, LogTotal, res.total)
		}
		page = 1
	}
}

// refused reports whether err means no request of this run can succeed:
// the service refused the credentials (HTTP 401/403) or the client is not
// configured for the operation.
func refused(err error) bool {
	var ae *svcapi.Error
	var ce *svcapi.ConfigError
	return errors.As(err, &ae) && ae.Unauthorized() || errors.As(err, &ce)
}

// errText is an error as it is stored and shown (sync_windows.error,
// sync_runs.error, biller_syncs.error, a problem's line): free text that is
// safe to print (redact.Text). The client removed the secrets from the
// answers it came from.
func errText(err error) string { return redact.Text(err.Error()) }

// stopError stops the whole run: its cause concerns every window.
type stopError struct{ err error }

func (e *stopError) Error() string { return e.err.Error() }
func (e *stopError) Unwrap() error { return e.err }

// finishResult is the state a window's walk ended in.
type finishResult struct {
	state         string
	stored, total int64
	why           string // walked again or a mismatch though the counts agree: why (tally.fallen)
	err           error
}

// checkpoint is the checkpoint of window w.
func (s *syncer) checkpoint(w *window, state string, nextPage int, total *int64, walks int, errText string) *store.SyncWindow {
	return &store.SyncWindow{Kind: w.kind, Account: s.o.Account, Day: w.day, State: state, NextPage: nextPage,
		Total: total, Walks: walks, Error: errText}
}

// ref is the externalRef of a request for a window's page (what "P") or
// probe (what "Q"): deterministic and alphanumeric.
func (s *syncer) ref(w *window, what string, page int) string {
	p := "ST"
	if w.kind == recon.Orders {
		p = "CO"
	}
	return p + strings.ReplaceAll(w.day, "-", "") + what + strconv.Itoa(page) + "W" + strconv.Itoa(w.walks) +
		"R" + strconv.FormatInt(s.runID, 10)
}

// request is the statement request of a window, without its page.
func (s *syncer) request(w *window) svcapi.StatementRequest {
	req := svcapi.StatementRequest{BankProfileID: s.o.BankProfileID, AccountNumber: s.o.Account,
		Filters: svcapi.StatementFilters{TxnDateFrom: w.day, TxnDateTo: w.day}}
	if w.kind == recon.Orders {
		req.BankProfileID, req.IsOrder = "0", true
	}
	return req
}

// walkOnce walks the pages of a window from page on. Each page's records go
// to the writer with the window's checkpoint; the last page's job also
// counts the stored records and decides the window's state against the
// walk's tally. On error it returns the page to resume at.
func (s *syncer) walkOnce(ctx context.Context, w *window, page int, lastWalk bool) (finishResult, int, error) {
	o := s.o
	req := s.request(w)
	req.Pagination.RecordsPerPage = strconv.Itoa(o.PageSize)
	normal := 0
	var t tally
	if page > 1 {
		t.count, t.latest = w.count, w.count // the pages before, walked by an earlier run
	}
	for p := page; ; p++ {
		if p > maxPages {
			return finishResult{}, p, fmt.Errorf("%s window %s: more than %d pages; the service never sent a short page", w.kind, w.day, maxPages)
		}
		req.ExternalRef = s.ref(w, "P", p)
		req.Pagination.PageNumber = strconv.Itoa(p)
		s.calls.Add(1)
		meta, recs, err := fetchPage(ctx, o.Client, req, w.kind, o.Account, w.day, p)
		if err != nil {
			var re *RecordError
			if errors.As(err, &re) {
				return finishResult{total: t.count}, p, err
			}
			return finishResult{total: t.count}, p, fmt.Errorf("fetch %s window %s page %d: %w", w.kind, w.day, p, err)
		}
		s.pages.Add(1)
		again, err := t.page(fmt.Sprintf("%s window %s page %d", w.kind, w.day, p), int64(meta.TotalRecords), recordsKey(recs), o.PageSize)
		if err != nil {
			return finishResult{total: t.count}, 1, err
		}
		if again {
			recs = nil // the last page served again past the end: the end
		}
		n := len(recs)
		total := t.count
		last := again || lastPage(p, n, o.PageSize, normal, meta)
		normal = max(normal, n)
		if !last {
			walks := w.walks
			s.writers.send(w, job{page: store.RecordPage{Records: recs, Window: s.checkpoint(w, StateWalking, p+1, &total, walks, "")}})
			if ctx.Err() != nil {
				return finishResult{}, p + 1, context.Cause(ctx)
			}
			continue
		}
		if total == 0 && (n > 0 || p > 1) {
			// Records served, and no page said how many there are.
			s.writers.send(w, job{page: store.RecordPage{Records: recs, Window: s.checkpoint(w, StateWalking, 1, nil, w.walks, "")}})
			return finishResult{}, 1, fmt.Errorf("%s window %s: no page said meta.totalRecords: the records stored cannot be checked against the service's count", w.kind, w.day)
		}
		res, err := s.finish(w, p, recs, &t, lastWalk)
		return res, p, err
	}
}

// finish stores a window's last page (p, holding recs), counts the day's
// records and decides the window's state: done when they are the walk's
// count and no record was withdrawn under the walk (t), else walked again,
// or a mismatch on the last walk.
func (s *syncer) finish(w *window, p int, recs []recon.Record, t *tally, lastWalk bool) (finishResult, error) {
	total, fell := t.says(), t.fallen()
	resc := make(chan finishResult, 1)
	var res finishResult
	walks, next := w.walks, p+1
	s.writers.send(w, job{
		page: store.RecordPage{Records: recs, Window: s.checkpoint(w, StateDone, next, &total, walks, ""),
			Finish: func(stored int64, cp *store.SyncWindow) {
				res = finishResult{state: StateDone, stored: stored, total: total, why: fell}
				cp.NextPage, cp.Error = next, "" // again: a transaction run again calls it again
				switch {
				case stored == total && fell == "":
				case lastWalk:
					res.state, cp.Error = StateMismatch, fell
				default:
					res.state, cp.NextPage = StateWalking, 1
				}
				cp.State = res.state
			}},
		done: func(err error) {
			res.err = err
			resc <- res
		}})
	res = <-resc
	return res, res.err
}

// recordsKey is what a page of records is compared with the page before
// it by (tally).
func recordsKey(recs []recon.Record) pageKey {
	if len(recs) == 0 {
		return pageKey{}
	}
	return pageKey{n: len(recs), first: strings.Join(recs[0].Values[:], "\x1f"), last: strings.Join(recs[len(recs)-1].Values[:], "\x1f")}
}

// lastPage decides whether page p, holding n records, ends the walk: it is
// empty, short (fewer than requested and fewer than the pages before it
// held), or past meta.totalPages. A full page is never the last on meta's
// word alone: the page after it is fetched (a service whose meta lags the
// records it serves would otherwise lose the rest). A first page smaller
// than requested is not short by itself when meta says more pages follow:
// the service may cap the page size.
func lastPage(p, n, requested, normal int, meta svcapi.Meta) bool {
	if n == 0 {
		return true
	}
	if tp := int(meta.TotalPages); tp > 0 && p > tp {
		return true
	}
	full := n >= requested || (normal > 0 && n >= normal) || (meta.RecordsOnCurrentPage > 0 && n < int(meta.RecordsOnCurrentPage))
	if full {
		return false
	}
	if p == 1 || normal == 0 {
		// No earlier page to compare with: only meta can say more follow.
		return int(meta.TotalPages) <= p
	}
	return true
}
