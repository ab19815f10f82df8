// Package bulk replays one operation of the service for every row of a CSV
// file, calling each row exactly once: a row is never re-sent blindly, and
// is sent again only when the service has said it never executed it.
//
// The pieces, in the order a run uses them:
//
//   - ReadTable reads the CSV file (UTF-8, optional BOM, CRLF or LF, quoted
//     fields) and its SHA-256;
//   - Build maps each record to a request body through the operation's schema
//     (dotted column names become nested objects; integer and boolean fields
//     are typed, everything else stays text) and validates every row before
//     anything is sent: every cell valid UTF-8 and within its field's length.
//     Columns that are not fields (Extra) are never sent; the results carry
//     them through. Each Row keeps its secret values (Row.Secrets);
//   - Starter.Plan applies the resume policy of bulkrun run: continue the
//     unfinished run of the same file, or refuse (the file was edited since
//     a run, or was run completely, unless Request.Again; an unfinished run
//     with other --set values), or start a new run; Starter.Start stores it
//     and takes its lease (Leases: one run, one holder);
//   - Runner.Execute calls the rows with a worker pool and a shared rate
//     limit, journaling each row (the Journal, bulk_rows in internal/store)
//     as 'sending' in a committed transaction before its call and with its
//     outcome after it (group commit: concurrent rows share transactions);
//   - Rechecker.Recheck resolves pending rows with the transaction-status
//     look-up; Settler.Settle repeats Execute and Recheck until no row is
//     pending or unsent;
//   - Results.WriteCSV and WriteXLSX write the results from the journal, in
//     input order, through internal/export's table writer (a temporary file
//     renamed when complete).
//
// CountRows is the one count of a run's rows that every view shows: a row
// still 'sending' counts as pending.
//
// # One run, one holder (SQLite)
//
// A process works on a run only while it holds the run's lease
// (bulk_leases: holder id, host, pid, since, heartbeat, renewed every
// Leases.Heartbeat). Another process is refused with a *HeldError naming
// the holder, before it changes anything. A lease whose holder is gone —
// its pid no longer runs on this host, or its heartbeat is older than
// Leases.Timeout — is taken over; the holder taken over sees Lease.Lost and
// stops starting calls. Heartbeats are written and aged by the database's
// clock (store.BulkLease.Now), not a host's.
//
// # Dead processes
//
// Leases.Sweep (bulkrun status) clears what a dead holder or dead workers
// left: their rows 'sending' become pending and a run left running by
// them RunInterrupted. With Runner.Recheck, the next Execute takes the
// rows a dead process left over: it looks them up before sending, and
// sends in the same Execute those the service never executed (takeOver);
// a worker of a shared run that finds no row left does so for workers
// gone meanwhile, and claims again.
//
// # One run, many workers (PostgreSQL)
//
// With Leases.Shared, every process that starts the same file (or resumes
// the run), on this host or others, joins the run as one of its workers
// (bulk_workers: worker id, host, pid, heartbeat). Two processes starting a
// new file at once make one run: the second is told to plan again
// (*JoinError) and joins it. Execute seeds the run's rows as queued
// journal rows, then claims a few at a time (store.DB.ClaimBulkRows:
// SELECT … FOR UPDATE SKIP LOCKED), marking them 'sending' with its
// worker id in the transaction that records its heartbeat; it calls them
// and journals each outcome only while the row is still its own. A worker
// found gone (the same test as a lease's) is reaped by the next one to
// start or end: its 'sending' rows become pending, for Recheck, and are
// never claimed again until Recheck returns them to unsent. The last
// worker to end sets the run's state. The results have a worker column.
//
// # Secrets
//
// The --set values of sensitive fields (marked Redacted in the registry,
// or keys redact removes or masks) are stored as redact.Marker: a process
// that sends the run's rows is given them again (Sets.Restore). The client
// secret and each row's secret values are scrubbed by value from
// everything kept of an answer (status, error, order id, response) and
// from the results.
//
// # Exactly once
//
// A row found 'sending' when a run resumes (the process died during its
// call) becomes 'pending' and is not sent by the resume: only the
// transaction-status look-up may resolve it. Recheck looks it up once it is
// older than the minimum wait:
//
//   - TXN: the service executed it: success, with the order id and pool
//     debit from the look-up;
//   - TUP: still pending;
//   - never executed (NeverExecuted: svcapi.TxnNotFound, SNA, or ERR with a
//     status that says not found or no such transaction; in the data or as
//     the look-up's own statuscode, also on the next day for a row sent just
//     before midnight): the service never executed it — typically a process
//     killed after journaling the row and before its request left, or a
//     request lost on its way. The row is returned to unsent (state
//     'unsent'; its journal row stays, with the statuscode the look-up gave,
//     an audit note in error and its attempts count) and the run, if done,
//     becomes stopped. The next Execute (bulkrun resume, settle, or the same
//     bulkrun run again) sends it once more with the same externalRef;
//   - any other code: a definite failure at the service: failed;
//   - no transaction status at all: the look-up said nothing; the row
//     stays pending.
//
// This is a deliberate decision: leaving such rows failed would lose them
// (called zero times). Sending them again is not a blind re-send: the
// look-up proved the service did not execute the row, and the service
// refuses a repeated externalRef with DTX without debiting again, so even a
// first request that arrives after the look-up (the minimum wait makes that
// unlikely) cannot be charged twice. A DTX answer to a re-sent row (attempts
// above 1) is journaled pending (ReasonDuplicateResend) and the next Recheck
// finds the late request's transaction (TXN → success with its order id and
// debit). A DTX on a row's first call stays failed: its externalRef was used
// by something else (a file's own externalRef run --again), not by this row.
//
// Rows whose request was dropped before the service executed it end the
// same way (pending, not found, unsent, sent again), so such a row reaches
// the service more than once but is executed and debited once.
//
// Precedence of values: a non-empty cell wins over a --set value of the same
// field; --set fills empty cells and missing columns.
//
// --max-debit is the most a run spends, whatever answers are lost
// (store.DebitCap): a call starts only while the run's confirmed debits,
// with every call whose debit is unknown (in flight, or pending) counted
// at the expected debit of one call, and the new call too, stay within it.
// The expected debit is the largest debit seen in the run (or the rate
// card's, Runner.Price): the first call goes alone to learn it, and while
// no answer has told it no other call starts. One holder keeps the account
// in memory (reserve, release); the workers of a shared run reserve in the
// database, under a lock of the run (store.DB.ClaimBulkRows), with the
// same arithmetic. A TXN answer whose pool debit is missing, unreadable or
// beyond the bound of an amount (recon.CheckAmount) is pending: executed,
// its debit unknown until Recheck reads it from the look-up.
package bulk
