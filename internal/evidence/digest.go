package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"iter"
	"slices"
	"strings"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
)

// dayFields are the RecordFields after clientOrderId in a canonical line.
func dayFields(k recon.Kind) []int {
	var out []int
	for i, f := range recon.RecordFields {
		if i == recon.FTxnDateTime || i == recon.FTxnDate || i == recon.FClientOrderID || !f.Carries(k) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// The digest of one day's records of one kind, what a manifest's
// statementDay and ordersDay inputs hold, for an auditor to recompute from
// statement.csv (orders.csv) exported with --csv-raw: each record is one
// line, its values as the file shows them (as stored, the narrations' and
// responseMsg's card and Aadhaar numbers masked to their last four) in the file's columns
// from accountNumber to its last API field (accountNumber, txnDateTime,
// txnDate, svcOrderId, clientOrderId, then every other field the kind
// carries in the API's order) joined by the unit separator U+001F and
// ended by "\n"; the lines are sorted bytewise (LC_ALL=C sort) and the
// digest is the SHA-256 of them all. A day without a record digests the
// empty text.
//
// dayDigest computes it as the records come, one line in memory: the
// store yields them in the lines' order (EvidenceRecords). sortedDigest
// is the definition itself, every line of the day held and sorted: for a
// day whose records did not come in order.

// appendLine appends the canonical line of r (fields: dayFields) to b.
func appendLine(b []byte, r *recon.Record, fields []int) []byte {
	b = append(b, r.Account...)
	for _, v := range []string{r.Values[recon.FTxnDateTime], r.Values[recon.FTxnDate], r.SvcOrderID, r.Values[recon.FClientOrderID]} {
		b = append(b, 0x1f)
		b = append(b, v...)
	}
	for _, i := range fields {
		b = append(b, 0x1f)
		v := r.Values[i]
		if recon.RecordFields[i].Mask && v != "" {
			v = redact.Numbers(v) // as the exports show it
		}
		b = append(b, v...)
	}
	return append(b, '\n')
}

// dayDigest hashes a day's canonical lines as they are added, as long as
// each comes at or after the one before (bytewise).
type dayDigest struct {
	fields     []int
	h          hash.Hash
	line, prev []byte
	n          int
	disordered bool // a line came before the one added before it
}

func newDayDigest(k recon.Kind) *dayDigest {
	return &dayDigest{fields: dayFields(k), h: sha256.New()}
}

// add adds a record of the day.
func (d *dayDigest) add(r *recon.Record) {
	if d.disordered {
		return
	}
	d.line = appendLine(d.line[:0], r, d.fields)
	if d.n > 0 && bytes.Compare(d.line, d.prev) < 0 {
		d.disordered = true
		return
	}
	d.h.Write(d.line)
	d.line, d.prev = d.prev, d.line
	d.n++
}

// sum is the day's digest (hex) and how many records it holds; ok is
// false when the records did not come in order (the digest is then
// sortedDigest's to compute).
func (d *dayDigest) sum() (digest string, records int, ok bool) {
	if d.disordered {
		return "", 0, false
	}
	return hex.EncodeToString(d.h.Sum(nil)), d.n, true
}

// sortedDigest is the digest of the day whose records of kind k records
// yields, in any order, and how many there are: their canonical lines
// held, sorted and hashed.
func sortedDigest(k recon.Kind, records iter.Seq2[*recon.Record, error]) (string, int, error) {
	fields := dayFields(k)
	var lines [][]byte
	for r, err := range records {
		if err != nil {
			return "", 0, err
		}
		lines = append(lines, appendLine(nil, r, fields))
	}
	slices.SortFunc(lines, bytes.Compare)
	h := sha256.New()
	for _, l := range lines {
		h.Write(l)
	}
	return hex.EncodeToString(h.Sum(nil)), len(lines), nil
}

// linesDigest is the digest of lines kept in the database: the SHA-256 of
// their SHA-256s (hex, each followed by "\n"), in the order given.
func linesDigest(hashes []string) string {
	return sha256Hex(strings.Join(hashes, "\n") + "\n")
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
