package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// recordsDump is every stored record of db but its sync times, in key
// order, one line each, and the number of records per kind and day.
func recordsDump(tb testing.TB, dsn string) (rows []string, perDay map[string]int) {
	tb.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	q, err := db.Query(`SELECT kind, account, svc_order_id, txn_date_time, status, client_order_id, transaction_id,
		product_code, txn_mode, txn_charged_value, order_value, narration_value0, narration_value9, response_code,
		reversal_svc_order_id, closing_balance, settlement_svc_order_id, txn_date FROM records ORDER BY kind, account, svc_order_id`)
	if err != nil {
		tb.Fatal(err)
	}
	defer q.Close()
	perDay = map[string]int{}
	for q.Next() {
		v := make([]string, 18)
		p := make([]any, len(v))
		for i := range v {
			p[i] = &v[i]
		}
		if err := q.Scan(p...); err != nil {
			tb.Fatal(err)
		}
		rows = append(rows, strings.Join(v[:17], "|"))
		perDay[v[0]+" "+v[17]]++
	}
	if err := q.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows, perDay
}

var syncCounts = regexp.MustCompile(`records: (\d+) new, (\d+) updated`)

// Two hosts sync overlapping periods into one PostgreSQL database at the
// same moment, from the same service: the database then holds exactly
// what one clean sync of the whole period stores — no record twice, none
// lost — and the two syncs count every record new once between them.
func TestSyncsFromTwoHostsOverlapping(t *testing.T) {
	needSandbox(t)
	srv, err := sandbox.Start(sandbox.Options{Seed: 5, Days: 12})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := srv.Config()
	for k, v := range map[string]string{"SVC_BASE_URL": c.BaseURL, "SVC_CLIENT_ID": c.ClientID, "SVC_CLIENT_SECRET": c.ClientSecret,
		"SVC_OUTLET_ID": c.OutletID, "SVC_ENDPOINT_IP": c.EndpointIP, "SVC_ACCOUNT": sandbox.DefaultCredentials.Account} {
		t.Setenv(k, v)
	}
	end := time.Now().In(recon.IST).AddDate(0, 0, -1)
	day := func(back int) string { return end.AddDate(0, 0, -back).Format(time.DateOnly) }
	shared, clean := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
	for _, dsn := range []string{shared, clean} {
		db, err := store.Open(context.Background(), dsn) // migrated before the syncs start
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	sync1 := func(from, to, dsn string) (string, error) {
		stdout, stderr, err := runCmd(t, "sync", "--from", from, "--to", to, "--db", dsn, "--page-size", "7",
			"--concurrency", "3", "--log-level", "error")
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, stderr)
		}
		return stdout, err
	}
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i, period := range [][2]string{{day(11), day(3)}, {day(7), day(0)}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if outs[i], err = sync1(period[0], period[1], shared); err != nil {
				t.Errorf("host %d: sync %s..%s: %v", i+1, period[0], period[1], err)
			}
		}()
	}
	wg.Wait()
	if _, err := sync1(day(11), day(0), clean); err != nil {
		t.Fatalf("clean sync: %v", err)
	}
	got, gotDays := recordsDump(t, shared)
	want, wantDays := recordsDump(t, clean)
	if len(want) == 0 {
		t.Fatal("the clean sync stored nothing")
	}
	if fmt.Sprint(gotDays) != fmt.Sprint(wantDays) {
		t.Errorf("records per kind and day:\ntwo hosts: %v\nclean:     %v", gotDays, wantDays)
	}
	if len(got) != len(want) {
		t.Fatalf("two hosts stored %d records, one clean sync %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d differs:\ntwo hosts: %s\nclean:     %s", i, got[i], want[i])
			break
		}
	}
	newCount := 0
	for _, out := range outs {
		m := syncCounts.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no counts in %q", out)
		}
		var n int
		fmt.Sscan(m[1], &n)
		newCount += n
	}
	if newCount != len(want) {
		t.Errorf("the two syncs counted %d records new between them, want %d (each once):\n%s", newCount, len(want), strings.Join(outs, ""))
	}
}

// On PostgreSQL, the job history names the host that ran each run.
func TestHistoryShowsTheHost(t *testing.T) {
	registerFake(t)
	pg := pgtest.NewDatabase(t)
	file := writeFile(t, t.TempDir(), "schedules.yaml", fakeSchedules)
	if _, stderr, err := runCmd(t, "schedule", "run", "nightly", "--file", file, "--db", pg); err != nil {
		t.Fatalf("schedule run: %v\n%s", err, stderr)
	}
	stdout, _, err := runCmd(t, "history", "--db", pg)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], " HOST ") || !regexp.MustCompile(`^1\s+nightly\s+manual\s+`+regexp.QuoteMeta(host)+`\s`).MatchString(lines[1]) {
		t.Errorf("history on PostgreSQL printed\n%s\nwant run 1 of nightly on host %s", stdout, host)
	}
}
