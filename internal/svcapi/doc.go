// Package svcapi is the client of the service: configuration, the
// operation registry, headers, the response envelope, tolerant decoding,
// errors, retries and the call log.
//
// The registry (Operations, Lookup) describes every operation as data —
// method, path, header set, billable or read-only, pool shape and request
// schema — and is shared by the client, the sandbox and the bulk executor.
// Client.Do calls any operation with a generic body (bulk sends every row
// so) and returns the envelope; ExtractPool reads its pool debit. Call
// decodes the data into a typed payload, for the answers the program reads
// field by field: the statement pages (Client.Statement), the biller list
// (Client.Billers) and the transaction-status look-up (Client.TxnStatus).
//
// Error contract: a failure statuscode is an *Error; a billable call whose
// outcome is unknown (TUP, time-out, connection lost after sending, an
// unreadable body) matches ErrPending and must never be sent again — look
// it up with Client.TxnStatus; a request breaking the schema is a
// *ValidationError and nothing is sent; a missing setting is a
// *ConfigError naming its environment variable. Read-only operations are
// retried with bounded exponential back-off and jitter; billable ones never.
//
// Amounts are exact decimals (Amount, decimal.Decimal), never float64.
// Every call is handed, redacted (Redact), to the configured Recorders.
package svcapi
