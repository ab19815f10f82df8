package statement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/jsonscan"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// envelopeFetcher is what *svcapi.Client offers beyond Fetcher: the
// envelope of a call, its data undecoded. A page's data is then read by the
// lean decoder (decodePage), which spares encoding/json's reflection on
// every field of every record, the sync's largest cost after the writer.
type envelopeFetcher interface {
	Do(ctx context.Context, op string, body any) (*svcapi.Envelope, error)
}

var _ envelopeFetcher = (*svcapi.Client)(nil)

// errNoPage is a Fetcher's answer without a page: a fault of the page,
// never the end of its day.
var errNoPage = fmt.Errorf("%w: no page answered", svcapi.ErrNotPage)

// fetchPage fetches one page and converts its records (toRecord's rules);
// day and page only name the place in errors.
func fetchPage(ctx context.Context, f Fetcher, req svcapi.StatementRequest, kind recon.Kind, account, day string,
	page int) (svcapi.Meta, []recon.Record, error) {
	var pg *svcapi.StatementPage
	if ef, ok := f.(envelopeFetcher); ok {
		op := svcapi.OpStatement
		if req.IsOrder {
			op = svcapi.OpCollectOrders
		}
		env, err := ef.Do(ctx, op, req)
		if err != nil {
			return svcapi.Meta{}, nil, err
		}
		if meta, recs, ok := decodePage(env.Data, kind, account); ok {
			return meta, recs, nil
		}
		if err := svcapi.CheckPage(env.Data); err != nil { // the client checks it too
			return svcapi.Meta{}, nil, fmt.Errorf("%s: %w", op, err)
		}
		pg = new(svcapi.StatementPage)
		if err := env.DecodeData(pg); err != nil { // as svcapi.Call does
			return svcapi.Meta{}, nil, fmt.Errorf("%s: %w", op, err)
		}
	} else {
		var err error
		if pg, err = f.Statement(ctx, req); err != nil {
			return svcapi.Meta{}, nil, err
		}
		if pg == nil {
			return svcapi.Meta{}, nil, errNoPage
		}
	}
	recs := make([]recon.Record, len(pg.Records))
	for i := range pg.Records {
		var err error
		if recs[i], err = toRecord(&pg.Records[i], kind, account, day, page, i+1); err != nil {
			return svcapi.Meta{}, nil, err
		}
	}
	return pg.Meta, recs, nil
}

// The JSON names of a statement record (svcapi.StatementRecord), and where
// each goes: a recon.RecordFields index, or keySvc.
var (
	recordKeys  []string
	recordSlots []int
)

const keySvc = -1

func init() {
	for i, f := range recon.RecordFields {
		if i == recon.FTxnDate {
			continue // derived from txnDateTime; not a field of the record sent
		}
		recordKeys = append(recordKeys, f.API)
		recordSlots = append(recordSlots, i)
	}
	recordKeys = append(recordKeys, "svcOrderId")
	recordSlots = append(recordSlots, keySvc)
}

var metaKeys = []string{"totalPages", "currentPage", "totalRecords", "recordsOnCurrentPage", "recordFrom", "recordTo"}

// decodePage reads a page's data (svcapi.StatementPage) into its meta and
// records, converted as toRecord does; ok is false when it gives up (a
// page that is not well formed, a value of an unexpected type or spelling,
// a record toRecord refuses: the full decoder then reads the page and says
// what is wrong).
func decodePage(data []byte, kind recon.Kind, account string) (meta svcapi.Meta, recs []recon.Record, ok bool) {
	var top [2]jsonscan.Span
	if len(data) == 0 || data[0] != '{' {
		return meta, nil, false
	}
	if end, ok := jsonscan.ScanObject(data, 0, []string{"meta", "records"}, top[:]); !ok || end != len(data) {
		return meta, nil, false
	}
	m, rs := top[0], top[1]
	if !m.Set() || !rs.Set() || data[m.From] != '{' || data[rs.From] != '[' {
		return meta, nil, false // not a page (svcapi.CheckPage says why)
	}
	var mv [6]jsonscan.Span
	if _, ok := jsonscan.ScanObject(data, m.From, metaKeys, mv[:]); !ok {
		return meta, nil, false
	}
	for i, dst := range []*svcapi.Int{&meta.TotalPages, &meta.CurrentPage, &meta.TotalRecords,
		&meta.RecordsOnCurrentPage, &meta.RecordFrom, &meta.RecordTo} {
		n, ok := jsonscan.Int(data, mv[i])
		if !ok {
			return meta, nil, false
		}
		*dst = svcapi.Int(n)
	}
	var v [len(recon.RecordFields)]jsonscan.Span
	_, ok = jsonscan.Objects(data, rs.From, recordKeys, v[:], func(jsonscan.Span) bool {
		r, ok := leanRecord(data, v[:], kind, account)
		recs = append(recs, r)
		return ok
	})
	return meta, recs, ok
}

// leanRecord converts one record's values (at recordKeys' places).
func leanRecord(data []byte, v []jsonscan.Span, kind recon.Kind, account string) (recon.Record, bool) {
	r := recon.Record{Kind: kind, Account: account}
	for k, slot := range recordSlots {
		var text string
		var ok bool
		if slot >= 0 && recon.RecordFields[slot].Type == recon.Amount {
			if text, ok = jsonscan.Amount(data, v[k]); ok {
				text, ok = amountString(text)
			}
		} else {
			text, ok = jsonscan.Text(data, v[k])
			text = strings.TrimSpace(text)
		}
		if !ok {
			return r, false
		}
		if slot == keySvc {
			r.SvcOrderID = text
		} else {
			r.Values[slot] = text
		}
	}
	// toRecord's checks: a timestamp, and a txnChargedValue that is a number.
	ts := r.Values[recon.FTxnDateTime]
	if ts == "" || len(ts) != len(recon.TimestampLayout) {
		return r, false
	}
	if _, err := time.ParseInLocation(recon.TimestampLayout, ts, recon.IST); err != nil || !digitsAt(ts) {
		return r, false
	}
	if _, err := svcapi.ParseAmount(r.Values[recon.FTxnChargedValue]); err != nil {
		return r, false
	}
	r.Values[recon.FTxnDate] = ts[:len(recon.DateLayout)]
	if r.SvcOrderID == "" {
		r.SvcOrderID = hashID(&r)
	}
	return r, true
}

// digitsAt reports whether a timestamp of TimestampLayout's length has a
// digit in every digit place (time.Parse takes a one-digit hour too).
func digitsAt(ts string) bool {
	for i := 0; i < len(ts); i++ {
		switch i {
		case 4, 7, 10, 13, 16:
		default:
			if ts[i] < '0' || ts[i] > '9' {
				return false
			}
		}
	}
	return true
}

// amountString is svcapi.Amount's String of a trimmed amount text: the
// decimal without trailing zeros (decimal.Decimal's String) when the text
// is a number, else the text itself (a masked balance). ok is false for a
// number beyond the bound of an amount (recon.CheckAmount): toRecord then
// says which.
func amountString(s string) (string, bool) {
	if s == "" {
		return s, true
	}
	if plain, ok := plainDecimalString(s); ok {
		return plain, recon.CheckAmountText(plain) == nil
	}
	d, err := svcapi.ParseAmount(s)
	switch {
	case err == nil:
		return d.String(), true
	case errors.Is(err, recon.ErrAmountRange):
		return s, false
	}
	return s, true
}

// plainDecimalString writes a plain decimal ([-]digits[.digits]) as
// decimal.Decimal's String does; false for any other text.
func plainDecimalString(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	whole, frac, hasPoint := strings.Cut(body, ".")
	if whole == "" || hasPoint && frac == "" {
		return "", false
	}
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return "", false
			}
		}
	}
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if whole == "" {
		whole = "0"
	}
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out, true
}
