package bulk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// A row's call: journaled 'sending' (committed) before it, its answer
// classified and journaled after it, whatever happens to the context.
//
// A sender journals the outcome of its last call in the transaction that
// journals its next row 'sending' (store.DB.StepBulkRows), with the calls
// table's records of that call (store.DeferCalls): one commit a row, shared
// with the other senders', instead of three. It does so while it calls the
// row it claimed before (ahead): the commit is off the calls' path, and a
// sender has at most one row in flight and one claimed. A claimed row not
// called yet when the execution's context ends, or the execution stops, is
// unclaimed: Ctrl-C starts nothing new. A process killed meanwhile leaves
// it 'sending': pending, looked up, sent again only once proven never
// executed, as any row whose process died.

// ended is a row's call that ended: its outcome, not journaled yet, and
// the calls table's records of the call.
type ended struct {
	row   Row
	res   Entry
	calls *store.DeferredCalls
}

// claimed is a row journaled 'sending' for this execution, to call, and
// its attempt number.
type claimed struct {
	row     Row
	attempt int
}

// sender sends the rows handed to it on jobs, one at a time, until jobs is
// closed: it calls the row it claimed while it journals the outcome of its
// last call with the claim of its next row (ahead).
func (ex *execution) sender(ctx context.Context, jobs <-chan Row) {
	jctx := context.WithoutCancel(ctx)
	var last *ended   // called, its outcome not journaled
	var next *claimed // claimed, to call
	open := true      // jobs is not closed
	type step struct {
		next *claimed
		open bool
	}
	steps := make(chan step, 1)
	for {
		if next == nil {
			if !open {
				ex.journal(jctx, last, nil)
				return
			}
			next, open = ex.take(ctx, jobs, last, nil)
			last = nil
			continue
		}
		if ctx.Err() != nil || ex.stopped() != "" {
			ex.journal(jctx, last, nil)
			ex.drop(jctx, next.row)
			last, next = nil, nil
			continue
		}
		called := make(chan struct{})
		go func(last *ended) {
			n, open := ex.take(ctx, jobs, last, called)
			steps <- step{n, open}
		}(last)
		c := ex.call(jctx, next.row, next.attempt)
		close(called)
		s := <-steps
		last, next, open = c, s.next, open && s.open
	}
}

// take journals last's outcome with the claim (claim) of the next row on
// jobs when one is at hand; else last's outcome alone, then it claims the
// next row handed until until is closed (nil: however long it takes). It
// returns the row claimed (nil: none) and false once jobs is closed.
func (ex *execution) take(ctx context.Context, jobs <-chan Row, last *ended, until <-chan struct{}) (*claimed, bool) {
	jctx := context.WithoutCancel(ctx)
	select {
	case row, ok := <-jobs:
		if !ok {
			ex.journal(jctx, last, nil)
			return nil, false
		}
		return ex.claim(ctx, row, last), true
	default:
	}
	ex.journal(jctx, last, nil)
	select {
	case row, ok := <-jobs:
		if !ok {
			return nil, false
		}
		return ex.claim(ctx, row, nil), true
	case <-until:
		return nil, true
	}
}

// drop unclaims a row claimed but not called (the execution's context
// ended, or the execution stopped, first) and releases its reservation.
func (ex *execution) drop(jctx context.Context, row Row) {
	if err := ex.unclaim(jctx, row); err != nil {
		ex.stop(StopError, fmt.Errorf("line %d: not sent, but the journal could not be corrected (it stays sending, pending for recheck): %w", row.Line, err))
	}
	ex.release(nil)
}

// claim journals last's outcome and row 'sending', reserved for it
// (reserve), in one transaction; the reservation is released at once when
// the row is not claimed. It returns the row claimed, or nil. Whatever
// happens, last's outcome is journaled: a claim refused (the execution
// stopped, its context ended, before or during the row's wait for its
// turn) journals it alone.
func (ex *execution) claim(ctx context.Context, row Row, last *ended) *claimed {
	// From the claim on the row is in flight: nothing cancels its journal
	// writes or its call (the client's time-out bounds it).
	jctx := context.WithoutCancel(ctx)
	refuse := func() *claimed {
		ex.journal(jctx, last, nil)
		ex.release(nil)
		return nil
	}
	if ex.Rate > 0 {
		// Journaled at once: the row may wait a while for its turn.
		ex.journal(jctx, last, nil)
		last = nil
	}
	if ex.stopped() != "" {
		return refuse()
	}
	if err := ex.limiter.Wait(ctx); err != nil {
		ex.stop(StopInterrupted, nil)
		return refuse()
	}
	if !ex.mayStart(ctx) {
		return refuse()
	}
	attempt, ok := ex.journal(jctx, last, &row)
	if !ok {
		ex.release(nil)
		return nil
	}
	if attempt == 0 {
		ex.release(nil)
		ex.log.Warn("row already journaled by another process; skipped", LogLine, row.Line, svcapi.LogRef, row.Ref)
		return nil
	}
	return &claimed{row, attempt}
}

// call calls a row claimed for this execution (attempt: its attempt
// number) and returns its outcome, to be journaled (journal); nil when
// the request never left (the row is unclaimed and the run stops).
// Nothing cancels it.
func (ex *execution) call(jctx context.Context, row Row, attempt int) *ended {
	if attempt > 1 {
		ex.log.Info("sending again a row the service never executed (txnStatus said not found)",
			LogLine, row.Line, svcapi.LogRef, row.Ref, "attempt", attempt)
	}
	cctx, calls := store.DeferCalls(jctx)
	env, callErr := ex.Client.Do(cctx, ex.run.Op, row.Body)
	secrets := append([]string{ex.Secret}, row.Secrets...)
	res, notSent := ex.outcome(env, callErr, attempt, secrets)
	if !notSent {
		return &ended{row: row, res: res, calls: calls}
	}
	// The request never reached the service (connection refused, bad
	// configuration): the row stays unsent and the run stops.
	callErr = scrubErr(callErr, secrets)
	if _, _, err := ex.DB.StepBulkRows(jctx, ex.run.ID, store.BulkStep{Calls: calls}); err != nil {
		ex.log.Error("call log not written", LogLine, row.Line, svcapi.LogRef, row.Ref, "error", err.Error())
	}
	err := ex.unclaim(jctx, row)
	ex.release(nil)
	if err != nil {
		ex.stop(StopError, fmt.Errorf("line %d: %v; and the journal could not be corrected: %w", row.Line, callErr, err))
		return nil
	}
	ex.stop(StopError, fmt.Errorf("line %d not sent: %w", row.Line, callErr))
	return nil
}

// journal journals, in one transaction, the outcome of last (nil: none)
// with the calls table's records of its call, and next (nil: none) as
// 'sending' before its call. It returns next's attempt number (0 when
// another process journaled it), and false when the journal could not be
// written (the run stops).
func (ex *execution) journal(jctx context.Context, last *ended, next *Row) (int, bool) {
	if last == nil && next == nil {
		return 0, true
	}
	step := store.BulkStep{Worker: ex.worker, At: ex.now()}
	if last != nil {
		res := last.res
		res.Line = last.row.Line
		step.Done, step.Calls = &res, last.calls
	}
	if next != nil {
		step.Next = &store.BulkNext{Line: next.Line, Ref: next.Ref}
	}
	mine, attempt, err := ex.DB.StepBulkRows(jctx, ex.run.ID, step)
	if last != nil {
		ex.ended(last, mine, err)
	}
	if err == nil {
		return attempt, true
	}
	switch {
	case last != nil && ex.worker != "":
		err = fmt.Errorf("journal outcome of line %d (%s; the row stays 'sending' and becomes pending): %w", last.row.Line, last.res.State, err)
	case last != nil:
		err = fmt.Errorf("journal outcome of line %d (%s; the row stays 'sending' and becomes pending on resume): %w",
			last.row.Line, last.res.State, err)
	default:
		err = fmt.Errorf("journal line %d as sending: %w", next.Line, err)
	}
	ex.stop(StopError, err)
	return 0, false
}

// ended releases the reservation of a call whose outcome was journaled
// (err: it could not be; the row stays 'sending', its outcome unknown) and
// counts it. mine is false when the row was taken from this worker.
func (ex *execution) ended(c *ended, mine bool, err error) {
	if err != nil {
		ex.release(&Entry{State: StatePending})
		return
	}
	if ex.worker != "" && !mine {
		ex.log.Warn("row taken from this worker (it was thought gone): its outcome is left to bulkrun recheck",
			LogLine, c.row.Line, svcapi.LogRef, c.row.Ref, "state", c.res.State)
	}
	ex.release(&c.res)
	ex.mu.Lock()
	ex.sent++
	ex.mu.Unlock()
	ex.bar.Add(1)
	if c.res.State != StateSuccess {
		ex.log.Debug("row not successful", LogLine, c.row.Line, svcapi.LogRef, c.row.Ref, "state", c.res.State, "error", c.res.Error)
	}
}

// ReasonDuplicateResend is the error recorded on a re-sent row the service
// refused as a duplicate (DTX): an earlier request with its externalRef
// was executed after the look-up that found nothing. The service debited
// nothing for the refused request; Recheck resolves the row from the
// transaction-status look-up (TXN: success with its order id and debit).
const ReasonDuplicateResend = "duplicate externalRef: looked up by recheck"

// statusDuplicate is the statuscode of a refused repeated externalRef.
const statusDuplicate = "DTX"

// outcome classifies a call's result; attempt is the row's attempt (1 for
// its first call). Each of secrets (the client secret, the row's sensitive
// values) is scrubbed from every text kept. notSent is true when the
// request cannot have reached the service.
func (ex *execution) outcome(env *svcapi.Envelope, err error, attempt int, secrets []string) (res Entry, notSent bool) {
	if env != nil {
		res.StatusCode = redact.Scrub(string(env.StatusCode), secrets...)
		res.Status = redact.Numbers(redact.Scrub(string(env.Status), secrets...))
		res.OrderID = redact.Scrub(string(env.OrderID), secrets...)
		if b, merr := json.Marshal(env); merr == nil {
			res.Response = redact.AadhaarJSONExcept(redact.JSON(b, secrets...), shownIDs...)
		}
	}
	var apiErr *svcapi.Error
	var ve *svcapi.ValidationError
	switch {
	case err == nil:
		res.State, res.PoolAmount, res.Error = ex.debit(env)
	case errors.Is(err, svcapi.ErrPending):
		res.State = StatePending
		res.Error = err.Error()
	case errors.As(err, &apiErr) && apiErr.Unauthorized():
		// The service refused the credentials or headers before executing
		// anything: every other row would be refused the same way. The row
		// stays unsent and the run stops, so that fixing the configuration
		// and resuming sends it.
		return res, true
	case errors.As(err, &apiErr) && apiErr.StatusCode == statusDuplicate && attempt > 1:
		// A re-sent row whose earlier request arrived late and was
		// executed. On a first attempt DTX stays a failure: the ref was
		// used by something else (a file's own externalRef run --again).
		res.State = StatePending
		res.Error = ReasonDuplicateResend
	case errors.As(err, &apiErr):
		res.State = StateFailed
		res.Error = err.Error()
	case errors.As(err, &ve):
		res.State = StateFailed // cannot happen: rows are validated before the run
		res.Error = err.Error()
	default:
		return res, true
	}
	res.Error = redact.Numbers(redact.Scrub(res.Error, secrets...))
	return res, false
}

// shownIDs are the keys of an answer whose values the journal keeps as
// sent, Aadhaar-shaped or not: the ids finance matches a row by (its
// orderid, externalRef) and the pool's account and reference. Every
// other Aadhaar number of an answer (a remark, a name-match message) is
// masked to its last four digits, as in the calls table (calllog), and
// card numbers in its status and error.
var shownIDs = []string{"orderid", "externalRef", "account", "referenceId"}

// debit reads the pool debit of a successful answer: success with it, or,
// when the operation debits a pool and the answer's debit is missing,
// unreadable or beyond the bound of an amount (recon.CheckAmount), pending
// with why: the call was executed but what it cost is unknown, and the
// transaction-status look-up tells it (bulkrun recheck).
func (ex *execution) debit(env *svcapi.Envelope) (state, amount, why string) {
	p, err := svcapi.ExtractPool(env)
	if err == nil {
		err = recon.CheckAmount(p.Amount)
	}
	switch {
	case err == nil:
		return StateSuccess, recon.Exact(p.Amount), ""
	case errors.Is(err, svcapi.ErrNoPool):
		if op, ok := svcapi.Lookup(ex.run.Op); !ok || op.Pool == svcapi.PoolNone {
			return StateSuccess, "", ""
		}
		return StatePending, "", ReasonDebitUnknown + ": the answer has no pool debit"
	case errors.Is(err, recon.ErrAmountRange):
		return StatePending, "", ReasonDebitUnknown + ": pool debit " + err.Error()
	}
	return StatePending, "", ReasonDebitUnknown + ": pool debit unreadable: " + err.Error()
}

// ReasonDebitUnknown begins the error of a row the service executed (TXN)
// whose debit its answer did not tell: the row is pending, for the
// transaction-status look-up.
const ReasonDebitUnknown = "executed (TXN) but its debit is unknown; bulkrun recheck looks it up"

// unclaim undoes claim for a request that never left: a first attempt's
// journal row is deleted (a shared run's is queued again), a re-send goes
// back to unsent.
func (ex *execution) unclaim(ctx context.Context, row Row) error {
	if ex.worker != "" {
		return ex.DB.ReturnBulkRows(ctx, ex.run.ID, ex.worker, []int{row.Line})
	}
	return ex.DB.UnclaimBulkRow(ctx, ex.run.ID, row.Line)
}
