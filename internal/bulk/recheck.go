package bulk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// RecheckSummary counts what a Recheck did with the pending rows.
type RecheckSummary struct {
	Pending      int // pending rows before the recheck (Counts.Pending: 'sending' rows included)
	InFlight     int // of Pending, rows 'sending' for less than SendingAge: left alone
	Checked      int // looked up
	Success      int // now success
	Failed       int // now failed: the service reports a failure of the transaction
	NotExecuted  int // not found at the service (never executed): returned to unsent, resume sends them
	StillPending int // the service still says TUP
	TooYoung     int // sent less than the minimum wait ago: left for later
	LookupErrors int // the look-up itself failed: left pending
	NoRef        int // the operation has no externalRef: cannot be looked up
}

// Rechecker resolves a run's pending rows with the transaction-status
// look-up.
type Rechecker struct {
	DB     Journal
	Client Caller
	Log    *slog.Logger
	// MinWait: rows sent less than this long ago are left for later.
	MinWait time.Duration
	// Concurrency is the number of look-ups in flight; default 4.
	Concurrency int
	// Now is the clock that decides which rows are old enough to look up,
	// and stamps the journal; default time.Now.
	Now func() time.Time
	// Secret (the client secret) and the Secrets of Rows (the run's rows,
	// optional) are scrubbed by value from the look-ups' answers.
	Secret string
	Rows   []Row

	only func(Entry) bool // when set, the rows looked up (the others are left alone, uncounted)
}

func (rc *Rechecker) now() time.Time { return now(rc.Now) }

// SendingAge is how old a 'sending' row must be for Recheck to treat it as
// pending: older than any call can last (the client's time-out), so the
// process that journaled it died and the run was not resumed since.
const SendingAge = 5 * time.Minute

// Recheck looks up every pending row of the run older than MinWait (and
// every 'sending' row older than SendingAge and MinWait; younger ones are
// InFlight) with
// client.TxnStatus(ctx, the IST day it was sent, its externalRef):
// transaction status TXN → success (order id and pool amount from the
// look-up), TUP → stays pending, never executed (NeverExecuted: SNA, or
// ERR saying not found; also as the look-up's own statuscode, and after a
// retry on the next day for a row sent just before midnight) → returned to
// unsent (StateUnsent), so that the next Execute sends it again with the
// same externalRef, any other code → failed (a definite failure). A look-up
// that fails, or answers no transaction status, leaves its row pending. A
// cancelled ctx starts no new look-up.
//
// Returning a row to unsent is safe only because the look-up is made at
// least MinWait after the row was sent (a request still travelling would be
// executed after the look-up) and because the service refuses a repeated
// externalRef (DTX) without debiting: a late first request and its re-send
// cannot both be charged, and Execute journals such a DTX as pending for the
// next Recheck. When rows were returned, a run in state done becomes
// stopped, so that bulkrun resume (or the same bulkrun run) continues it.
func (rc *Rechecker) Recheck(ctx context.Context, run *Run) (RecheckSummary, error) {
	var s RecheckSummary
	op, ok := svcapi.Lookup(run.Op)
	if !ok {
		return s, fmt.Errorf("bulk run %s: unknown operation %q", run.ID, run.Op)
	}
	_, hasRef := op.Field(RefField)
	before, err := CountRows(ctx, rc.DB, run)
	if err != nil {
		return s, err
	}
	s.Pending = before.Pending
	start := rc.now()
	var pending []Entry
	err = rc.DB.EachBulkRowToCheck(ctx, run.ID, start.Add(time.Second),
		func(e Entry) error { pending = append(pending, e); return nil })
	if err != nil {
		return s, err
	}
	lu := &lookups{rc: rc, run: run, sum: &s, secrets: rc.rowSecrets(), log: rc.Log.With(LogRun, run.ID)}
	work := lu.start(ctx)
	for _, e := range pending {
		if rc.only != nil && !rc.only(e) || !s.due(e, start, rc.MinWait, hasRef) || ctx.Err() != nil {
			continue
		}
		select {
		case work <- e:
		case <-ctx.Done():
		}
	}
	close(work)
	lu.wg.Wait()
	firstErr := lu.firstErr
	if s.NotExecuted > 0 && firstErr == nil {
		if err := reopen(context.WithoutCancel(ctx), rc.DB, run, rc.now()); err != nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return s, firstErr
	}
	if ctx.Err() != nil {
		return s, fmt.Errorf("recheck bulk run %s: %w", run.ID, ctx.Err())
	}
	return s, nil
}

// due says whether a pending row is looked up now (start: when the recheck
// started), and counts it when not: a row 'sending' for less than
// SendingAge is in flight, one of an operation without externalRef cannot
// be looked up, one sent less than minWait ago is too young.
func (s *RecheckSummary) due(e Entry, start time.Time, minWait time.Duration, hasRef bool) bool {
	switch {
	case e.State == StateSending && e.SentAt.After(start.Add(-SendingAge)):
		s.InFlight++
	case !hasRef:
		s.NoRef++
	case e.SentAt.After(start.Add(-minWait)):
		s.TooYoung++
	default:
		return true
	}
	return false
}

// rowSecrets are the secrets scrubbed from each row's look-up, by line.
func (rc *Rechecker) rowSecrets() map[int][]string {
	secrets := map[int][]string{}
	for _, r := range rc.Rows {
		secrets[r.Line] = append([]string{rc.Secret}, r.Secrets...)
	}
	return secrets
}

// lookups are a Recheck's look-ups in flight: Concurrency workers that
// look up the rows sent on the channel and count what became of them.
type lookups struct {
	rc      *Rechecker
	run     *Run
	secrets map[int][]string
	log     *slog.Logger
	wg      sync.WaitGroup

	mu       sync.Mutex
	sum      *RecheckSummary
	firstErr error // the first journal error
}

// start starts the workers; closing the returned channel ends them.
func (lu *lookups) start(ctx context.Context) chan<- Entry {
	work := make(chan Entry)
	for range max(lu.rc.Concurrency, 1) {
		lu.wg.Add(1)
		go func() {
			defer lu.wg.Done()
			for e := range work {
				sec, ok := lu.secrets[e.Line]
				if !ok {
					sec = []string{lu.rc.Secret}
				}
				kind, err := lu.rc.one(ctx, lu.run, e, sec)
				lu.count(e, kind, scrubErr(err, sec))
			}
		}()
	}
	return work
}

// count adds a look-up's outcome (the row's new state, "" when the look-up
// failed) to the summary.
func (lu *lookups) count(e Entry, kind string, err error) {
	lu.mu.Lock()
	defer lu.mu.Unlock()
	s := lu.sum
	s.Checked++
	switch kind {
	case StateSuccess:
		s.Success++
	case StateFailed:
		s.Failed++
	case StatePending:
		s.StillPending++
	case StateUnsent:
		s.NotExecuted++
		lu.log.Info("the service never executed this row (txnStatus not found); returned to unsent: resume sends it again with the same externalRef",
			LogLine, e.Line, svcapi.LogRef, e.Ref, "attempts", e.Attempts)
	default:
		s.LookupErrors++
		lu.log.Warn("transaction-status look-up failed; row left pending", LogLine, e.Line, svcapi.LogRef, e.Ref, "error", err)
	}
	if kind == "" && err != nil && lu.firstErr == nil && isJournalErr(err) {
		lu.firstErr = err
	}
}

// reopen marks a done run stopped: Recheck returned rows to unsent.
func reopen(ctx context.Context, db Journal, run *Run, at time.Time) error {
	if err := db.ReopenBulkRun(ctx, run.ID, at); err != nil {
		return fmt.Errorf("bulk run %s: mark stopped (rows to send again): %w", run.ID, err)
	}
	if run.State == RunDone {
		run.State = RunStopped
	}
	return nil
}

type journalErr struct{ error }

func (e journalErr) Unwrap() error { return e.error }

func isJournalErr(err error) bool {
	var je journalErr
	return errors.As(err, &je)
}

// midnightSlack: a call sent this close to midnight (IST) may be dated the
// next day by the service; a not-found look-up is retried on that day.
const midnightSlack = 2 * time.Minute

// lookup is Client.TxnStatus, with "no such transaction" answered at the
// outer level (SNA, or ERR saying not found) turned into transaction status
// svcapi.TxnNotFound.
func (rc *Rechecker) lookup(ctx context.Context, day time.Time, ref string) (*svcapi.TxnStatusData, error) {
	d, err := rc.Client.TxnStatus(ctx, day, ref)
	var apiErr *svcapi.Error
	if errors.As(err, &apiErr) && NeverExecuted(apiErr.StatusCode, apiErr.Status) {
		return &svcapi.TxnStatusData{TransactionStatusCode: svcapi.String(apiErr.StatusCode), TransactionStatus: svcapi.String(apiErr.Status)}, nil
	}
	return d, err
}

// statusError is the statuscode of the service's generic error.
const statusError = "ERR"

// notFoundPhrases are what a status message says of a transaction the
// service has no record of (in any case).
var notFoundPhrases = []string{"not found", "no such transaction", "no transaction", "no record", "does not exist"}

// NeverExecuted reports whether a transaction-status answer (its code and
// message) proves the service never executed the transaction: code SNA
// (svcapi.TxnNotFound), or ERR (or no code) with a message that says so
// ("not found", "no such transaction", "no record" …). ERR with another
// message ("Transaction failed") is a failure of the transaction.
func NeverExecuted(code, msg string) bool {
	if code == svcapi.TxnNotFound {
		return true
	}
	if code != statusError && code != "" {
		return false
	}
	msg = strings.ToLower(msg)
	for _, p := range notFoundPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// lookupState is the state a look-up's answer gives its row: TXN success,
// TUP pending, never executed (NeverExecuted) unsent, any other code a
// definite failure; "" when the answer has no transaction status (it says
// nothing: the row stays as it is).
func lookupState(code, msg string) string {
	switch {
	case code == svcapi.StatusSuccess:
		return StateSuccess
	case code == svcapi.StatusPending:
		return StatePending
	case NeverExecuted(code, msg):
		return StateUnsent
	case code == "":
		return ""
	}
	return StateFailed
}

// errNoStatus is a look-up answered without a transaction status.
var errNoStatus = errors.New("txnStatus answered without a transaction status")

// lookupDebit is the debit of a transaction the look-up found executed
// (TXN): its pool's amount, else its txnValue; "" for an operation that
// debits no pool. For one that does, a debit missing, or beyond the bound
// of an amount (recon.CheckAmount), is an error: the row's debit is still
// unknown, and it stays pending.
func lookupDebit(opName string, d *svcapi.TxnStatusData) (string, error) {
	var a decimal.Decimal
	switch {
	case d.Pool != nil:
		a = d.Pool.Amount
	case d.TxnValue.Valid:
		a = d.TxnValue.Decimal
	default:
		if op, ok := svcapi.Lookup(opName); !ok || op.Pool == svcapi.PoolNone {
			return "", nil
		}
		return "", errors.New("txnStatus answered TXN without a debit (no pool, no txnValue): the row's debit is still unknown")
	}
	if err := recon.CheckAmount(a); err != nil {
		return "", fmt.Errorf("txnStatus answered TXN with a debit %w: the row's debit is still unknown", err)
	}
	return recon.Exact(a), nil
}

// one looks one row up and journals the answer, with secrets scrubbed. It
// returns the row's new state, or "" when the look-up failed.
func (rc *Rechecker) one(ctx context.Context, run *Run, e Entry, secrets []string) (string, error) {
	runID := run.ID
	sent := e.SentAt.In(recon.IST)
	d, err := rc.lookup(ctx, sent, e.Ref)
	if err == nil && lookupState(string(d.TransactionStatusCode), string(d.TransactionStatus)) == StateUnsent {
		next := sent.Add(midnightSlack)
		if next.Day() != sent.Day() {
			// A failed second look-up leaves the row pending: not found
			// on the first day alone does not prove it was not executed.
			d, err = rc.lookup(ctx, next, e.Ref)
		}
	}
	state, amount := "", ""
	if err == nil {
		if state = lookupState(string(d.TransactionStatusCode), string(d.TransactionStatus)); state == "" {
			err = errNoStatus
		}
	}
	if state == StateSuccess {
		amount, err = lookupDebit(run.Op, d)
	}
	checked := rc.now()
	jctx := context.WithoutCancel(ctx)
	if err != nil {
		if werr := rc.DB.CheckedBulkRow(jctx, runID, e.Line, e.State, checked); werr != nil {
			return "", journalErr{fmt.Errorf("journal look-up of line %d: %w", e.Line, werr)}
		}
		return "", err
	}
	res := rc.resolved(e, state, d, secrets)
	res.PoolAmount = amount
	if werr := rc.DB.ResolveBulkRow(jctx, runID, e.State, res, checked); werr != nil {
		return "", journalErr{fmt.Errorf("journal look-up of line %d: %w", e.Line, werr)}
	}
	return state, nil
}

// resolved is the journal row of e after a look-up answered d, which gives
// it state; secrets are scrubbed from every text kept.
func (rc *Rechecker) resolved(e Entry, state string, d *svcapi.TxnStatusData, secrets []string) Entry {
	code := string(d.TransactionStatusCode)
	orderID := e.OrderID
	msg := redact.Scrub(string(d.TransactionStatus), secrets...)
	errText := ""
	switch state {
	case StateSuccess:
		if d.OrderID != "" {
			orderID = redact.Scrub(string(d.OrderID), secrets...)
		}
	case StateUnsent:
		if msg == "" {
			msg = "not found at the service"
		}
		errText = redact.Scrub(fmt.Sprintf("txnStatus: %s %s: never executed by the service; returned to unsent after %d attempt(s), resume sends it again with the same externalRef",
			code, msg, e.Attempts), secrets...)
	case StateFailed:
		errText = redact.Scrub(fmt.Sprintf("txnStatus: %s %s", code, msg), secrets...)
	case StatePending:
		errText = e.Error
		if e.State == StateSending {
			errText = ReasonDiedSending
		}
	}
	return Entry{Line: e.Line, State: state, StatusCode: redact.Scrub(code, secrets...), Status: msg, OrderID: orderID,
		Error: errText}
}
