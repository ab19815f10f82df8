// Package ledger is svcrecon's reconciliation of a period (Check): the
// arithmetic of every pool object, the chain of balances per pool account
// with same-second ordering and gaps explained by statement records, calls
// matched to statement records, reversals and unsettled collect orders with
// their age. It reads the calls table (filled by package calllog) and the
// synced statement and collect-order records.
//
// The check scales with the month without its memory doing so: it reads
// the period's calls and records as two ordered streams and keeps only the
// records near the call at hand (Check).
//
// All amounts are exact decimals (shopspring/decimal); the results are
// stored as a reconciliation run (recon_* tables) whose JSON summary the
// exports read.
package ledger
