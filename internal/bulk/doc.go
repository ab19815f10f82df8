// Package bulk replays one operation of the service for every row of a CSV
// file, calling each row at most once.
//
// The pieces, in the order a run uses them:
//
//   - ReadTable reads the CSV file (UTF-8, optional BOM, CRLF or LF, quoted
//     fields) and its SHA-256;
//   - Build maps each record to a request body through the operation's schema
//     (dotted column names become nested objects; integer and boolean fields
//     are typed, everything else stays text) and validates every row before
//     anything is sent;
//   - Runner.Execute calls the rows with a worker pool and a shared rate
//     limit, journaling each row in SQLite (bulk_rows) as 'sending' in a
//     committed transaction before its call and with its outcome after it;
//   - Rechecker.Recheck resolves pending rows with the transaction-status
//     look-up;
//   - Results.WriteCSV and WriteXLSX write the results from the journal, in
//     input order.
//
// A row found 'sending' when a run resumes (the process died during its call)
// becomes 'pending' and is never sent again: only txnStatus may resolve it.
// A row is therefore called at most once: a process killed after journaling
// a row and before its request left leaves a row the service never saw;
// txnStatus then answers not found and the row ends failed (nothing was
// charged).
//
// Precedence of values: a non-empty cell wins over a --set value of the same
// field; --set fills empty cells and missing columns.
//
// --max-debit reserves nothing: no new call starts once the pool debits of
// the run's successful rows reach the amount, so the calls in flight at that
// moment may overshoot it by at most Concurrency × the largest single debit.
// Pending rows are not counted until recheck resolves them.
package bulk
