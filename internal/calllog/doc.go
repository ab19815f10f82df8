// Package calllog brings call logs into the calls table, where the
// reconciliation (ledger) reads them: the client's own logs (JSONL, one
// call record or bare response envelope a line, plain or gzip, from files
// or standard input: ImportFiles, Import) and the calls svcrecon makes
// itself (Recorder), stored exactly as importing their lines would.
//
// Each line is parsed (a lean decoder for the common line, the full one
// for every other), redacted (the client secret replaced, sensitive values
// removed or masked) and kept for audit: as a reference into its file
// (offset, length, SHA-256) or, read from a stream, redacted in the
// database. Show reads a call's line back (`reconcile calls show`).
//
// The import scales with the log without its memory doing so: chunks of
// whole lines are decoded in parallel and stored in order, BatchLines lines
// a transaction, by one writer; a line imported before (same SHA-256) adds
// nothing, and a bad line is recorded with its reason, never quoted.
package calllog
