// Package ledger is svcrecon's reconciliation of a period (Check): the
// arithmetic of every pool object, the chain of balances per pool account
// with same-second ordering and gaps explained by statement records, calls
// matched to statement records, duplicate debits, reversals, unsettled
// collect orders with their age, suggested pairs, and, with a rate card,
// the fees of the statement's debits. It reads the calls
// table (filled by package calllog) and the synced statement and
// collect-order records.
//
// A check is a pipeline of named stages, one file each, each tested on
// its own: load (load.go, resolve.go), pool (pool.go: arithmetic.go,
// chain.go), matching (match.go, window.go), duplicates (duplicates.go,
// keyset.go), gaps (gaps.go), reversals (reversals.go), suggested pairs
// (suggest.go, pair.go), unsettled (unsettled.go), fees against a rate
// card (fees.go) and summary (summary.go). pipeline.go wires them;
// check.go runs a check and stores it. A stage reads what earlier stages produced and knows no other stage.
//
// The check scales with the month without its memory doing so: it reads
// the period's calls and records as two ordered streams and keeps only the
// records near the call at hand, writing what it finds as it finds it.
//
// The reconciliation's types are declared here (findings.go: Run, Break,
// Match, Reversal, Unsettled; checkstore.go: what a check reads, and the
// CheckStore interface it needs). Package store maps them to its tables
// (a run's recon_* rows, and its JSON summary) and reads them back for
// the exports. All amounts are exact decimals (shopspring/decimal).
package ledger
