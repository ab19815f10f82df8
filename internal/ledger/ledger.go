// Package ledger is svcrecon's reconciliation: it imports call logs (the
// client's own JSONL logs and bare response envelopes, plain or gzip) into
// the calls table, records the calls svcrecon makes itself there too
// (Recorder), and checks a period (Check): the arithmetic of every pool
// object, the chain of balances per pool account with same-second ordering
// and gaps explained by statement records, calls matched to statement
// records, reversals and unsettled collect orders with their age.
//
// Both scale with the month without their memory doing so: the import
// decodes chunks of lines in parallel with a lean decoder and keeps each
// line by reference (or redacted in the database, for a stream); the check
// reads the period's calls and records as two ordered streams and keeps
// only the records near the call at hand (Check).
//
// All amounts are exact decimals (shopspring/decimal); the results are
// stored as a reconciliation run (recon_* tables) whose JSON summary the
// exports read.
package ledger
