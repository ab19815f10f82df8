package bulk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// secretInput writes a balanceInquiry input of n rows whose sensitive
// biometric cells (encryptedAadhaar, hmac, sessionKey) hold unique markers,
// pidData left to --set, and returns its path and the markers.
func secretInput(tb testing.TB, dir string, n int) (string, []string) {
	tb.Helper()
	op := mustOp(tb, svcapi.OpBalanceInquiry)
	var header []string
	for _, f := range op.Fields {
		if f.Req == svcapi.Mandatory && f.Name != RefField && f.Name != "biometricData.pidData" {
			header = append(header, f.Name)
		}
	}
	var markers []string
	var sb strings.Builder
	sb.WriteString(strings.Join(header, ",") + "\n")
	for i := range n {
		cells := make([]string, len(header))
		for c, h := range header {
			switch {
			case hiding(op, h) != hideNone:
				cells[c] = fmt.Sprintf("MARK%sQ%04d", strings.ToUpper(h[strings.LastIndex(h, ".")+1:]), i)
				markers = append(markers, cells[c])
			case h == "mobile":
				cells[c] = "9876543210"
			default:
				cells[c] = "7" + strings.Repeat("1", c%3)
			}
		}
		sb.WriteString(strings.Join(cells, ",") + "\n")
	}
	path := filepath.Join(dir, "bio.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path, markers
}

// A careless service quotes back the client secret and every request value
// in its statuses, data and look-ups. None of them reaches the journal, the
// run's settings, the log or the results (CSV and the unzipped workbook):
// the database file's bytes are searched for each marker.
func TestSecretsQuotedBackAreScrubbedByValue(t *testing.T) {
	const secret = "CLIENTSECRETMARKER93"
	const pidData = "SETPIDDATAMARKER4471"
	srv := bulktest.Start(bulktest.Options{Echo: true, Fail: 0.3, Pending: 0.3})
	defer srv.Close()
	cfg := srv.Config()
	cfg.ClientSecret = secret
	client, err := svcapi.New(cfg) // no recorders: the calls table is the client's own concern
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "bulk.db")
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	in, markers := secretInput(t, dir, 12)
	markers = append(markers, secret, pidData)
	op := mustOp(t, svcapi.OpBalanceInquiry)
	table, err := ReadTable(in)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := ParseSets(op, []string{"biometricData.pidData=" + pidData})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st := &Starter{DB: db}
	plan, err := st.Plan(ctx, Request{Op: op.Name, Input: in, SHA256: table.SHA256, Rows: len(table.Records), Settings: Settings{Sets: sets}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Start(ctx, plan); err != nil {
		t.Fatal(err)
	}
	run := plan.Run
	rows, err := Build(op, table, sets, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	sum, err := (&Runner{DB: db, Client: client, Log: log, Concurrency: 4, Secret: secret}).Execute(ctx, run, rows)
	if err != nil || sum.Pending == 0 || sum.Failed == 0 {
		t.Fatalf("Execute = %+v, %v; want some pending and failed rows", sum, err)
	}
	if _, err := (&Rechecker{DB: db, Client: client, Log: log, Secret: secret, Rows: rows}).Recheck(ctx, run); err != nil {
		t.Fatal(err)
	}
	rs := &Results{DB: db, Run: run, Table: table, Op: op, Secret: secret}
	csvPath, xlsxPath := filepath.Join(dir, "out.csv"), filepath.Join(dir, "out.xlsx")
	if err := rs.WriteCSV(ctx, csvPath); err != nil {
		t.Fatal(err)
	}
	if err := rs.WriteXLSX(ctx, xlsxPath); err != nil {
		t.Fatal(err)
	}

	// The quoting happened, and was scrubbed.
	es, err := journalRows(ctx, db, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	quoted := 0
	for _, e := range es {
		if strings.Contains(e.Status, "(echo: secret "+redact.Marker) {
			quoted++
		}
	}
	if quoted != len(es) {
		t.Errorf("%d of %d journal rows show the scrubbed quote; want all (the fake quotes back every answer)", quoted, len(es))
	}
	stored, err := LoadRun(ctx, db, run.ID)
	if err != nil || stored.Settings.Sets["biometricData.pidData"] != redact.Marker {
		t.Errorf("stored --set pidData = %q, %v; want %s", stored.Settings.Sets["biometricData.pidData"], err, redact.Marker)
	}

	bulktest.NoSecrets(t, "the log", logs.Bytes(), markers)
	for _, p := range []string{csvPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		bulktest.NoSecrets(t, p, b, markers)
	}
	bulktest.NoSecrets(t, "the unzipped workbook", bulktest.Unzip(t, xlsxPath), markers)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(dbPath + "*")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		bulktest.NoSecrets(t, p, b, markers)
	}
}

// Secret --set values are stored redacted; continuing a run compares them
// as stored and takes the given values; a run whose secret values were not
// given again says which to give, and sends nothing.
func TestSecretSetsAreWithheld(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	op := mustOp(t, svcapi.OpBalanceInquiry)
	sets, err := ParseSets(op, []string{"biometricData.pidData=PIDSECRET1", "bankiin=607152"})
	if err != nil {
		t.Fatal(err)
	}
	st := &Starter{DB: db}
	q := Request{Op: op.Name, Input: "/bio.csv", SHA256: "s", Rows: 1, Settings: Settings{Sets: sets}}
	p, err := st.Plan(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Start(ctx, p); err != nil {
		t.Fatal(err)
	}
	raw, _ := db.BulkRun(ctx, p.Run.ID)
	if strings.Contains(raw.Settings, "PIDSECRET1") || !strings.Contains(raw.Settings, "607152") {
		t.Errorf("stored settings = %s; want pidData redacted, bankiin kept", raw.Settings)
	}
	// The same command again (another pidData value, even): continued with
	// the values given.
	again := q
	again.Settings.Sets = Sets{"biometricData.pidData": "PIDSECRET2", "bankiin": "607152"}
	p2, err := st.Plan(ctx, again)
	if err != nil || !p2.Continue || p2.Run.Settings.Sets["biometricData.pidData"] != "PIDSECRET2" {
		t.Fatalf("Plan(same file) = %+v, %v; want continued with the given secret", p2, err)
	}

	run, err := LoadRun(ctx, db, p.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Settings.Sets.Withheld(); len(got) != 1 || got[0] != "biometricData.pidData" {
		t.Errorf("Withheld = %q", got)
	}
	var wh *WithheldError
	_, err = run.Settings.Sets.Restore(run.ID, "bulkrun resume "+run.ID, nil)
	if !errors.As(err, &wh) || !errors.Is(err, ErrRefused) ||
		!strings.Contains(err.Error(), "bulkrun resume "+run.ID+" --set biometricData.pidData=VALUE") {
		t.Errorf("Restore(nothing given) = %v; want a *WithheldError saying what to type", err)
	}
	if _, err := run.Settings.Sets.Restore(run.ID, "x", Sets{"bankiin": "1"}); err == nil {
		t.Error("Restore(a stored value given again) = nil, want an error")
	}
	got, err := run.Settings.Sets.Restore(run.ID, "x", Sets{"biometricData.pidData": "PIDSECRET3"})
	if err != nil || got["biometricData.pidData"] != "PIDSECRET3" || got["bankiin"] != "607152" {
		t.Errorf("Restore = %v, %v", got, err)
	}
}
