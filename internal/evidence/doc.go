// Package evidence keeps what a month's close rests on, run after run:
//
//   - the manifest of each reconciliation run (Record, after the check;
//     its long reads started with the check, Prefetch):
//     the tool's version, the settings and rules by hash, every input by
//     SHA-256 (call-log files as read; each statement and collect-order
//     day as a digest of its stored records, DayDigest), counts and
//     control totals at each step, the completeness of the period, the
//     verdict, and a digest of it all; an export adds its files in a
//     section of its own (ExportManifest);
//   - exceptions across runs: every break and exception found has one
//     identity (its kind and natural key, Finding.Key; shown as EX-…),
//     first and last seen, a status (open, explained, written-off,
//     resolved when a run that covers it no longer finds it) and an
//     assignee; decisions at the command line (Decide) or in the workbook
//     (ImportWorkbook);
//   - sign-offs (Sign): a preparer, then an approver who is someone else,
//     bound to the run's manifest digest, stale once the period's inputs
//     change;
//   - the history: every event of an exception and every sign-off is
//     appended, never changed, each carrying the hash of the one before
//     (Chain); VerifyChain and VerifyManifest recompute the chain, the
//     manifests and the inputs.
//
// It declares the store it needs (Store); internal/store maps its types to
// tables. The check (internal/ledger) stays about one period: evidence
// reads what the run stored.
package evidence
