package bulk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// A row's call: journaled 'sending' (committed) before it, its answer
// classified and journaled after it, whatever happens to the context.

// send journals, calls and journals one row, reserved for it (reserve);
// the reservation is released with the call's outcome, or at once when
// the row is not called.
func (ex *execution) send(ctx context.Context, row Row) {
	if ex.stopped() != "" {
		ex.release(nil)
		return
	}
	if err := ex.limiter.Wait(ctx); err != nil {
		ex.release(nil)
		ex.stop(StopInterrupted, nil)
		return
	}
	if !ex.mayStart(ctx) {
		ex.release(nil)
		return
	}
	// From here on the row is in flight: nothing cancels its journal writes
	// or its call (the client's time-out bounds it).
	jctx := context.WithoutCancel(ctx)
	attempt, err := ex.claim(jctx, row)
	if err != nil {
		ex.release(nil)
		ex.stop(StopError, err)
		return
	}
	if attempt == 0 {
		ex.release(nil)
		ex.log.Warn("row already journaled by another process; skipped", LogLine, row.Line, svcapi.LogRef, row.Ref)
		return
	}
	ex.call(jctx, row, attempt)
}

// call calls a row claimed for this execution (attempt: its attempt
// number) and journals its outcome; nothing cancels it.
func (ex *execution) call(jctx context.Context, row Row, attempt int) {
	if attempt > 1 {
		ex.log.Info("sending again a row the service never executed (txnStatus said not found)",
			LogLine, row.Line, svcapi.LogRef, row.Ref, "attempt", attempt)
	}
	env, callErr := ex.Client.Do(jctx, ex.run.Op, row.Body)
	secrets := append([]string{ex.Secret}, row.Secrets...)
	res, notSent := ex.outcome(env, callErr, attempt, secrets)
	callErr = scrubErr(callErr, secrets)
	if notSent {
		// The request never reached the service (connection refused, bad
		// configuration): the row stays unsent and the run stops.
		err := ex.unclaim(jctx, row)
		ex.release(nil)
		if err != nil {
			ex.stop(StopError, fmt.Errorf("line %d: %v; and the journal could not be corrected: %w", row.Line, callErr, err))
			return
		}
		ex.stop(StopError, fmt.Errorf("line %d not sent: %w", row.Line, callErr))
		return
	}
	if err := ex.finish(jctx, row, res); err != nil {
		// The row stays 'sending': its outcome is unknown.
		ex.release(&Entry{State: StatePending})
		ex.stop(StopError, err)
		return
	}
	ex.release(&res)
	ex.mu.Lock()
	ex.sent++
	ex.mu.Unlock()
	ex.bar.Add(1)
	if res.State != StateSuccess {
		ex.log.Debug("row not successful", LogLine, row.Line, svcapi.LogRef, row.Ref, "state", res.State, "error", res.Error)
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
		res.Status = redact.Scrub(string(env.Status), secrets...)
		res.OrderID = redact.Scrub(string(env.OrderID), secrets...)
		if b, merr := json.Marshal(env); merr == nil {
			res.Response = redact.JSON(b, secrets...)
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
	res.Error = redact.Scrub(res.Error, secrets...)
	return res, false
}

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

// claim journals a row as 'sending' before its call (committed, possibly
// with other rows' writes, before it returns): a new journal row, or a row
// Recheck returned to unsent (same line and externalRef). It returns the
// row's attempt number, or 0 when the row is journaled already (another
// process claimed it).
func (ex *execution) claim(ctx context.Context, row Row) (int, error) {
	attempt, err := ex.DB.ClaimBulkRow(ctx, ex.run.ID, row.Line, row.Ref, ex.now())
	if err != nil {
		return 0, fmt.Errorf("journal line %d as sending: %w", row.Line, err)
	}
	return attempt, nil
}

// unclaim undoes claim for a request that never left: a first attempt's
// journal row is deleted (a shared run's is queued again), a re-send goes
// back to unsent.
func (ex *execution) unclaim(ctx context.Context, row Row) error {
	if ex.worker != "" {
		return ex.DB.ReturnBulkRows(ctx, ex.run.ID, ex.worker, []int{row.Line})
	}
	return ex.DB.UnclaimBulkRow(ctx, ex.run.ID, row.Line)
}

// finish journals the outcome of a row's call.
func (ex *execution) finish(ctx context.Context, row Row, res Entry) error {
	res.Line = row.Line
	if ex.worker != "" {
		mine, err := ex.DB.FinishClaimedBulkRow(ctx, ex.run.ID, ex.worker, res, ex.now())
		if err == nil && !mine {
			ex.log.Warn("row taken from this worker (it was thought gone): its outcome is left to bulkrun recheck",
				LogLine, row.Line, svcapi.LogRef, row.Ref, "state", res.State)
		}
		if err == nil {
			return nil
		}
		return fmt.Errorf("journal outcome of line %d (%s; the row stays 'sending' and becomes pending): %w", row.Line, res.State, err)
	}
	if err := ex.DB.FinishBulkRow(ctx, ex.run.ID, res, ex.now()); err != nil {
		return fmt.Errorf("journal outcome of line %d (%s; the row stays 'sending' and becomes pending on resume): %w",
			row.Line, res.State, err)
	}
	return nil
}
