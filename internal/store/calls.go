package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// ImportError is a call-log line that could not be stored as a call
// (import_errors). Line 0 concerns the file as a whole, or a call svcrecon
// made itself. Reason never quotes the line.
type ImportError struct {
	Source string
	Line   int
	Reason string
}

// callCols are the calls columns InsertCalls writes, in appendCallArgs'
// order: what the checks and the reports read, and where the line is kept.
// The line's other fields (at, method, path, httpStatus, latencyMs, error,
// actcode, status, svc_uuid, the pool's mode, the request) stay in the line
// (calls show); their columns hold what calls stored before kept.
var callCols = []string{"line_hash", "source", "source_line", "ts", "operation", "external_ref", "statuscode",
	"orderid", "outcome", "pool_account", "pool_shape", "pool_opening", "pool_amount", "pool_closing", "response",
	"imported_at", "line_source", "line_block", "line_offset", "line_length"}

// callsPerInsert is how many calls one INSERT statement of InsertCalls
// carries.
const callsPerInsert = 32

// callConsts are values shared by every call of a batch of one file's
// lines, written as literals of its INSERT instead of bound for each row:
// the import time, the file's name and source. A batch of other calls
// (svcrecon's own, one at a time, a stream's lines kept in blocks) binds
// every value, so that its INSERT reads the same for every batch of as
// many calls, and a statement kept prepared (insertCalls' kept) serves
// them all.
type callConsts struct {
	stamp    string
	file     bool // every call of the batch is from source, line in file sourceID
	source   string
	sourceID int64
}

// batchConsts returns the batch's shared values.
func batchConsts(calls []recon.Call, stamp string) callConsts {
	k := callConsts{stamp: stamp}
	if len(calls) == 0 || calls[0].SourceID == 0 {
		return k
	}
	for i := range calls {
		c := &calls[i]
		if c.SourceID != calls[0].SourceID || c.Source != calls[0].Source || c.Block != nil {
			return k
		}
	}
	k.file, k.source, k.sourceID = true, calls[0].Source, calls[0].SourceID
	return k
}

// callsInsert is the insert of calls with the shared values k. A call
// stored before (by its time and line hash) is skipped.
func callsInsert(k callConsts) *rowInsert {
	ins := &rowInsert{table: "calls", key: "ts, line_hash", per: callsPerInsert}
	if k.file {
		ins.fixed = []fixedValue{{"imported_at", k.stamp}, {"source", k.source}, {"line_source", k.sourceID},
			{"line_block", nil}}
	}
	for _, c := range callCols {
		if !slices.ContainsFunc(ins.fixed, func(f fixedValue) bool { return f.col == c }) {
			ins.cols = append(ins.cols, c)
		}
	}
	return ins
}

// insertBlockSQL stores a block of lines kept in the database.
const insertBlockSQL = `INSERT INTO call_blocks (data) VALUES (?) RETURNING id`

// keptCallSQL are the statements that store the calls table's records of
// one call svcrecon made (its line in a block of its own), as the bulk
// journal keeps them prepared (StepBulkRows): each call of a bulk run has
// them run in the transaction of its outcome, and SQLite would parse them
// again every time.
func (db *DB) keptCallSQL() []string {
	q := []string{insertBlockSQL, db.dialect.insertIgnore("call_accounts", "account, day", "(?, ?)")}
	if one := db.dialect.keptInsertSQL(callsInsert(callConsts{}), 1); one != "" {
		q = append(q, one)
	}
	return q
}

const insertImportErrorSQL = `INSERT INTO import_errors (source, line, reason, imported_at)
	SELECT ?1, ?2, ?3, ?4 WHERE NOT EXISTS
	(SELECT 1 FROM import_errors WHERE source = ?1 AND line = ?2 AND reason = ?3)`

// appendCallArgs appends the values of c, whose line hash is hash (its
// bytes), in callCols' order, but those written as literals (k).
func appendCallArgs(a []any, c *recon.Call, hash []byte, k callConsts) []any {
	a = append(a, hash)
	if !k.file {
		a = append(a, c.Source)
	}
	a = append(a, c.Line, c.TS, c.Operation, c.ExternalRef, c.StatusCode, c.OrderID,
		string(c.Outcome), c.Pool.Account, c.Pool.Shape, c.Pool.Opening, c.Pool.Amount, c.Pool.Closing,
		callText(c.Response))
	if !k.file {
		a = append(a, k.stamp)
		var source, block any
		if c.SourceID != 0 {
			source = c.SourceID
		}
		if c.Block != nil {
			block = c.Block.ID
		}
		a = append(a, source, block)
	}
	return append(a, c.Offset, c.Length)
}

// InsertCalls stores a batch of calls and bad lines in one transaction,
// stamped imported at at (insertCallRows: many a statement on SQLite, a
// COPY on PostgreSQL). A call whose line (Hash) was stored before is
// skipped; a bad line already recorded with the same reason is not
// recorded again. The line blocks the calls point into (Call.Block) are
// stored first, those not stored yet; a block none of whose calls is new
// is not kept. It returns how many calls were new.
func (db *DB) InsertCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []ImportError) (int, error) {
	return db.writeCalls(ctx, at, calls, bad, false)
}

// InsertReportCalls is InsertCalls for the calls of read-only operations
// svcrecon made itself (statement pages, status checks: calllog.Recorder),
// each its own transaction: on PostgreSQL its commit does not wait for the
// WAL's flush to the disk (relaxCommit), which a sync's two thousand pages
// waited for one after the other. A crash of the database server in the
// next fraction of a second may lose such a row (the calls made are in the
// client's call log too, whose import brings them back); a billable call's
// row, a record and a checkpoint are committed as before.
func (db *DB) InsertReportCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []ImportError) (int, error) {
	return db.writeCalls(ctx, at, calls, bad, true)
}

// writeCalls is InsertCalls, its commit relaxed when relax is set.
func (db *DB) writeCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []ImportError, relax bool) (int, error) {
	var inserted int
	var stored []*recon.LineBlock // blocks given an id in this transaction
	err := db.Write(ctx, func(tx *sql.Tx) error {
		if relax {
			if err := db.dialect.relaxCommit(ctx, tx); err != nil {
				return err
			}
		}
		var err error
		inserted, stored, err = db.insertCalls(ctx, tx, FormatTime(at), calls, bad)
		return err
	})
	if err != nil {
		for _, b := range stored {
			b.ID = 0 // rolled back
		}
		return 0, err
	}
	return inserted, nil
}

// insertCalls is InsertCalls in transaction tx, stamped imported at stamp.
// stored are the blocks it gave an id (also on error: they are rolled
// back with tx).
func (db *DB) insertCalls(ctx context.Context, tx *sql.Tx, stamp string, calls []recon.Call, bad []ImportError) (inserted int, stored []*recon.LineBlock, err error) {
	if len(bad) > 0 {
		st, err := tx.PrepareContext(ctx, insertImportErrorSQL)
		if err != nil {
			return 0, nil, err
		}
		defer st.Close()
		for _, b := range bad {
			if _, err := st.ExecContext(ctx, b.Source, b.Line, b.Reason, stamp); err != nil {
				return 0, nil, fmt.Errorf("record bad line %d: %w", b.Line, err)
			}
		}
	}
	for i := range calls {
		b := calls[i].Block
		if b == nil || b.ID != 0 {
			continue
		}
		if err := db.journal.queryRow(ctx, tx, insertBlockSQL, b.Data).Scan(&b.ID); err != nil {
			return 0, stored, fmt.Errorf("store lines: %w", err)
		}
		stored = append(stored, b)
	}
	inserted, err = db.insertCallRows(ctx, tx, calls, stamp)
	if err != nil {
		return 0, stored, err
	}
	if err := db.noteCallAccounts(ctx, tx, calls); err != nil {
		return 0, stored, err
	}
	return inserted, stored, dropEmptyBlocks(ctx, tx, calls, stored, inserted)
}

// callAcct is a row of call_accounts: a pool account that calls with a
// pool entry name on a day (YYYY-MM-DD of their ts). The check reads the
// pool accounts of a period there (CheckPoolAccounts), not from the calls.
type callAcct struct{ account, day string }

// callAccts returns the distinct rows of call_accounts the calls name.
func callAccts(calls []recon.Call) []callAcct {
	var out []callAcct
	seen := map[callAcct]bool{}
	for i := range calls {
		c := &calls[i]
		if c.Pool.Account == "" || c.Pool.Shape == "" || len(c.TS) < len(time.DateOnly) {
			continue
		}
		a := callAcct{c.Pool.Account, c.TS[:len(time.DateOnly)]}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// noteCallAccounts adds the pool accounts the calls name, by day, to
// call_accounts: one statement of the batch's few distinct pairs, those
// not known to be stored already (knownAccts).
func (db *DB) noteCallAccounts(ctx context.Context, tx *sql.Tx, calls []recon.Call) error {
	add := slices.DeleteFunc(callAccts(calls), func(a callAcct) bool {
		_, known := db.knownAccts.Load(a)
		return known
	})
	if len(add) == 0 {
		return nil
	}
	args := make([]any, 0, 2*len(add))
	for _, a := range add {
		args = append(args, a.account, a.day)
	}
	if _, err := db.journal.exec(ctx, tx, db.dialect.insertIgnore("call_accounts", "account, day",
		strings.Repeat("(?, ?), ", len(add)-1)+"(?, ?)"), args...); err != nil {
		return fmt.Errorf("note pool accounts: %w", err)
	}
	return nil
}

// knowAccounts records that the pool accounts the calls name are in
// call_accounts, once the transaction that noted them is committed: later
// calls of the same account and day skip that statement (one of the few
// each call of a bulk run costs; an import notes a batch's pairs in one,
// and does not record them). Nothing deletes rows of call_accounts.
func (db *DB) knowAccounts(calls []recon.Call) {
	for _, a := range callAccts(calls) {
		db.knownAccts.Store(a, struct{}{})
	}
}

// dropEmptyBlocks deletes the blocks stored in this transaction (stored)
// none of whose lines was inserted, all of them imported before: there are
// none when every call was inserted, and all are when none was; otherwise
// each block's calls are looked up by their key. (calls has no index on
// line_block: a look-up by it read the whole table, for each call
// svcrecon records.)
func dropEmptyBlocks(ctx context.Context, tx *sql.Tx, calls []recon.Call, stored []*recon.LineBlock, inserted int) error {
	if inserted == len(calls) {
		return nil
	}
	for _, b := range stored {
		keep := false
		for i := 0; i < len(calls) && inserted > 0 && !keep; i++ {
			c := &calls[i]
			if c.Block != b {
				continue
			}
			hash, err := appendHash(nil, c.Hash)
			if err != nil {
				return err
			}
			var one int
			err = tx.QueryRowContext(ctx, `SELECT 1 FROM calls WHERE ts = ? AND line_hash = ? AND line_block = ?`,
				c.TS, hash, b.ID).Scan(&one)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			keep = err == nil
		}
		if keep {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM call_blocks WHERE id = ?`, b.ID); err != nil {
			return err
		}
	}
	return nil
}

// insertCallRows inserts calls, a statement of callsPerInsert at a time
// on SQLite, a COPY of many on PostgreSQL (dialect.batchRows), and
// returns how many were new. A call whose line hash is not 64 lowercase
// hex digits is an error, before any is inserted.
func (db *DB) insertCallRows(ctx context.Context, tx *sql.Tx, calls []recon.Call, stamp string) (int, error) {
	hashes, err := callHashes(calls)
	if err != nil {
		return 0, err
	}
	k := batchConsts(calls, stamp)
	ins := callsInsert(k)
	ins.kept = db.journal
	defer ins.close()
	per := db.dialect.batchRows(callsPerInsert)
	args := make([]any, 0, min(per, len(calls))*ins.width())
	inserted := 0
	for len(calls) > 0 {
		n := min(len(calls), per)
		args = args[:0]
		for i := range calls[:n] {
			args = appendCallArgs(args, &calls[i], hashes[:hashLen:hashLen], k)
			hashes = hashes[hashLen:]
		}
		added, err := db.dialect.insertRows(ctx, tx, ins, args)
		if err != nil {
			return 0, fmt.Errorf("lines %d–%d: %w", calls[0].Line, calls[n-1].Line, err)
		}
		inserted += int(added)
		calls = calls[n:]
	}
	return inserted, nil
}

// callHashes returns the bytes of the calls' line hashes, one after the
// other.
func callHashes(calls []recon.Call) ([]byte, error) {
	hashes := make([]byte, 0, hashLen*len(calls))
	for i := range calls {
		var err error
		if hashes, err = appendHash(hashes, calls[i].Hash); err != nil {
			return nil, fmt.Errorf("call of line %d of %s: %w", calls[i].Line, calls[i].Source, err)
		}
	}
	return hashes, nil
}

// callText stores nil as NULL and a document as text.
func callText(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// CallSource returns the id of the call-log file path (absolute) as it is
// now (size, modification time, gzip or not), recording it when it is new.
func (db *DB) CallSource(ctx context.Context, path string, size int64, modTime time.Time, gzip bool) (int64, error) {
	mod := FormatTime(modTime)
	var id int64
	err := db.QueryRowContext(ctx, `SELECT id FROM call_sources WHERE path = ? AND size = ? AND mod_time = ? AND gzip = ?
		ORDER BY id LIMIT 1`, path, size, mod, gzip).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	err = db.Write(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO call_sources (path, size, mod_time, gzip, imported_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id`, path, size, mod, gzip, FormatTime(time.Now())).Scan(&id)
	})
	return id, err
}

// CallSourceSeal is what an import learnt of a call-log file by reading it
// to the end: the path as given, the SHA-256 (hex) and size of the bytes
// it read and imported, its non-blank lines and the first and last call
// time (ts) they hold. The bytes are the file's first Bytes, through the
// last line imported: a line appended after the import's reading ended is
// in none of them (the next import reads, imports and seals it).
type CallSourceSeal struct {
	Name, SHA256    string
	Bytes           int64
	Lines           int
	FirstTS, LastTS string
}

// SealCallSource records what the import of call-log file id read.
func (db *DB) SealCallSource(ctx context.Context, id int64, s CallSourceSeal) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE call_sources SET name = ?, sha256 = ?, bytes = ?, lines = ?,
			first_ts = ?, last_ts = ? WHERE id = ?`, s.Name, s.SHA256, s.Bytes, s.Lines, s.FirstTS, s.LastTS, id)
		return err
	})
}

// StoredCall is a call as `reconcile calls show` prints it: where its line
// is kept, and its stored documents (calls imported before lines were kept
// have only those).
type StoredCall struct {
	ID             int64
	Hash, Source   string
	SourceLine     int
	TS, Operation  string
	ExternalRef    string
	File           string // the file the line is in ("" none)
	FileSize       int64  // its size and modification time (RFC 3339 UTC) when imported
	FileModTime    string
	Gzip           bool   // Offset counts the decompressed stream
	Block          []byte // the compressed block holding the redacted line (nil none)
	Offset, Length int64
	// Request and Response are the documents stored with the call (nil
	// none); Fields the rest of its row, for a call stored without its line.
	Request, Response []byte
	Fields            map[string]string
}

// StoredCalls returns the calls named by ref: a call id (a number) or an
// externalRef, oldest first.
func (db *DB) StoredCalls(ctx context.Context, ref string) ([]StoredCall, error) {
	cond, arg := `c.external_ref = ?`, any(ref)
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		cond, arg = `(c.id = ? OR c.external_ref = ?)`, id
	}
	args := []any{arg}
	if strings.HasPrefix(cond, "(") {
		args = append(args, ref)
	}
	rows, err := db.QueryContext(ctx, `SELECT c.id, c.line_hash, c.source, c.source_line, c.ts, c.operation, c.external_ref,
		COALESCE(s.path, ''), COALESCE(s.size, 0), COALESCE(s.mod_time, ''), COALESCE(s.gzip, 0), b.data,
		c.line_offset, c.line_length, c.request, c.response,
		c.at, c.method, c.path, c.http_status, c.latency_ms, c.error, c.statuscode, c.status, c.orderid, c.outcome
		FROM calls c LEFT JOIN call_sources s ON s.id = c.line_source LEFT JOIN call_blocks b ON b.id = c.line_block
		WHERE `+cond+` ORDER BY c.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StoredCall
	for rows.Next() {
		var c StoredCall
		var hash []byte
		var req, resp sql.NullString
		var at, method, path, errText, code, status, orderID, outcome string
		var httpStatus, latency int64
		if err := rows.Scan(&c.ID, &hash, &c.Source, &c.SourceLine, &c.TS, &c.Operation, &c.ExternalRef,
			&c.File, &c.FileSize, &c.FileModTime, &c.Gzip, &c.Block, &c.Offset, &c.Length, &req, &resp,
			&at, &method, &path, &httpStatus, &latency, &errText, &code, &status, &orderID, &outcome); err != nil {
			return nil, err
		}
		var err error
		if c.Hash, err = hashHex(hash); err != nil {
			return nil, fmt.Errorf("call %d: %w", c.ID, err)
		}
		if req.Valid {
			c.Request = []byte(req.String)
		}
		if resp.Valid {
			c.Response = []byte(resp.String)
		}
		c.Fields = map[string]string{"at": at, "method": method, "path": path, "httpStatus": strconv.FormatInt(httpStatus, 10),
			"latencyMs": strconv.FormatInt(latency, 10), "error": errText, "statuscode": code, "status": status,
			"orderid": orderID, "outcome": outcome}
		out = append(out, c)
	}
	return out, rows.Err()
}
