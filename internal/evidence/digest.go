package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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

// dayDigest computes the digest of one day's records of one kind, what a
// manifest's statementDay and ordersDay inputs hold, for an auditor to
// recompute from statement.csv (orders.csv) exported with --csv-raw: each
// record is one line, its values as the file shows them (as stored, the
// narrations' card and Aadhaar numbers masked to their last four) in the
// file's columns from accountNumber to its last API field (accountNumber,
// txnDateTime, txnDate, svcOrderId, clientOrderId, then every other field
// the kind carries in the API's order) joined by the unit separator
// U+001F and ended by "\n"; the lines are sorted bytewise (LC_ALL=C sort)
// and the digest is the SHA-256 of them all. A day without a record
// digests the empty text.
type dayDigest struct {
	kind   recon.Kind
	fields []int
	lines  [][]byte
}

func newDayDigest(k recon.Kind) *dayDigest { return &dayDigest{kind: k, fields: dayFields(k)} }

// add adds a record of the day.
func (d *dayDigest) add(r *recon.Record) {
	var b bytes.Buffer
	b.WriteString(r.Account)
	for _, v := range []string{r.Values[recon.FTxnDateTime], r.Values[recon.FTxnDate], r.SvcOrderID, r.Values[recon.FClientOrderID]} {
		b.WriteByte(0x1f)
		b.WriteString(v)
	}
	for _, i := range d.fields {
		b.WriteByte(0x1f)
		v := r.Values[i]
		if recon.RecordFields[i].Mask && v != "" {
			v = redact.Numbers(v) // as the exports show it
		}
		b.WriteString(v)
	}
	b.WriteByte('\n')
	d.lines = append(d.lines, b.Bytes())
}

// sum is the day's digest (hex) and how many records it holds.
func (d *dayDigest) sum() (string, int) {
	slices.SortFunc(d.lines, bytes.Compare)
	h := sha256.New()
	for _, l := range d.lines {
		h.Write(l)
	}
	return hex.EncodeToString(h.Sum(nil)), len(d.lines)
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
