package evidence_test

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// readCounter counts the store's reads of records.
type readCounter struct {
	evidence.Store
	reads int
}

func (c *readCounter) EvidenceRecords(ctx context.Context, k recon.Kind, from, to string) iter.Seq2[*recon.Record, error] {
	c.reads++
	return c.Store.EvidenceRecords(ctx, k, from, to)
}

// TestStreamedDigestIsTheSortedDefinition stores records in a scrambled
// order, with accounts, times and order ids whose byte order differs from
// a linguistic one (case, punctuation) and masked card numbers, and checks
// that the day digests streamed from the store are those of the
// definition (every line of the day sorted bytewise), in one read of the
// records: the store's order is the lines' order. On the last day an
// account holding a tab sorts apart from its column (the tab comes before
// the unit separator): that day alone is read again and sorted. On
// PostgreSQL the columns are given a linguistic collation first.
func TestStreamedDigestIsTheSortedDefinition(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		days := []string{"2026-10-01", "2026-10-02", "2026-10-03", "2026-10-04"} // the 4th without records
		accounts := []string{"ACC", "acc", "AC", "ACC-2", "ACC_2", "Ab", "aB"}
		var recs []recon.Record
		n := 0
		for di, day := range days[:3] {
			accts := accounts
			if di == 2 {
				accts = append(slices.Clone(accounts), "ACC\tX")
			}
			for _, acct := range accts {
				for _, tm := range []string{"10:00:00", "09:59:59", "10:00:00", "23:59:59"} {
					n++
					r := recon.Record{Kind: recon.Statement, Account: acct, SvcOrderID: fmt.Sprintf("%s%d", []string{"so", "SO", "S-", "s_"}[n%4], n)}
					r.Values[recon.FTxnDateTime], r.Values[recon.FTxnDate] = day+" "+tm, day
					r.Values[recon.FTxnMode], r.Values[recon.FTxnChargedValue] = []string{"DR", "CR"}[n%2], fmt.Sprintf("%d.50", n)
					r.Values[recon.FClientOrderID] = fmt.Sprintf("ref-%d", n%3)
					r.Values[recon.FNarrationValue0] = fmt.Sprintf("card 4111111111111111 paid %d", n)
					recs = append(recs, r)
				}
			}
		}
		if strings.HasSuffix(t.Name(), "/postgres") {
			linguistic(t, f)
		}
		rand.New(rand.NewPCG(28, 1)).Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		if _, _, err := f.db.WriteRecords(f.ctx, f.now, []store.RecordPage{{Records: recs}}); err != nil {
			t.Fatal(err)
		}

		db := &readCounter{Store: f.db}
		got, err := evidence.DigestDays(f.ctx, db, recon.Statement, days)
		if err != nil {
			t.Fatal(err)
		}
		if db.reads != 2 {
			t.Errorf("records read %d times, want 2 (the days in one pass, then the day with the tab)", db.reads)
		}
		for i, day := range days {
			want, wantN, err := evidence.SortedDigest(recon.Statement, func(yield func(*recon.Record, error) bool) {
				for j := range recs {
					if recs[j].Day() == day && !yield(&recs[j], nil) {
						return
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if got[i].Day != day || got[i].SHA256 != want || got[i].Records != wantN {
				t.Errorf("%s: digest %s of %d records, want %s of %d", day, got[i].SHA256, got[i].Records, want, wantN)
			}
		}
		if empty := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got[3].SHA256 != empty {
			t.Errorf("a day without records digests %s, want SHA-256 of nothing", got[3].SHA256)
		}
	})
}

// linguistic gives the columns of the records' order a linguistic
// collation (ICU's root locale), as a database created in a locale other
// than C has: the store must still read them in byte order.
func linguistic(t *testing.T, f *fixture) {
	t.Helper()
	for _, col := range []string{"account", "txn_date_time", "svc_order_id"} {
		f.exec(`ALTER TABLE records ALTER COLUMN ` + col + ` TYPE text COLLATE "und-x-icu"`)
	}
}
