package bulk

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
)

func TestStarterPlan(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	clock := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	st := &Starter{DB: db, Now: func() time.Time { return clock }}
	q := Request{Op: "verifyPanPlusV2", Input: "/data/pans.csv", Name: "pans.csv", SHA256: "v1", Rows: 3,
		Settings: Settings{Sets: Sets{"consent": "Y"}, Concurrency: 8}}
	start := func(q Request) *Run {
		t.Helper()
		p, err := st.Plan(ctx, q)
		if err != nil {
			t.Fatalf("Plan(%+v) = %v", q, err)
		}
		if _, err := st.Start(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.Run
	}

	first := start(q)
	if got, err := LoadRun(ctx, db, first.ID); err != nil || !got.CreatedAt.Equal(clock) || got.State != RunRunning || got.Settings.Concurrency != 8 || got.TotalRows != 3 {
		t.Fatalf("started run = %+v, %v; want running, created at the injected clock", got, err)
	}

	// Same content, unfinished: continued, with the same --set values only.
	p, err := st.Plan(ctx, q)
	if err != nil || !p.Continue || p.Run.ID != first.ID {
		t.Fatalf("Plan(same file, unfinished) = %+v, %v; want run %s continued", p, err, first.ID)
	}
	p.Run.Settings.Concurrency = 2
	clock = clock.Add(time.Hour)
	if _, err := st.Start(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadRun(ctx, db, first.ID); got.Settings.Concurrency != 2 || !got.UpdatedAt.Equal(clock) {
		t.Errorf("continued run = %+v; want concurrency 2, updated at the injected clock", got)
	}
	other := q
	other.Settings.Sets = Sets{"consent": "N"}
	var unfinished *UnfinishedError
	if _, err := st.Plan(ctx, other); !errors.As(err, &unfinished) || !errors.Is(err, ErrRefused) {
		t.Errorf("Plan(other --set) = %v; want *UnfinishedError", err)
	}

	// Done: refused unless --again.
	if err := db.SetBulkRunState(ctx, first.ID, RunDone, clock); err != nil {
		t.Fatal(err)
	}
	var completed *CompletedError
	if _, err := st.Plan(ctx, q); !errors.As(err, &completed) || !errors.Is(err, ErrRefused) {
		t.Errorf("Plan(done file) = %v; want *CompletedError", err)
	}
	again := q
	again.Again = true
	second := start(again)
	if second.ID == first.ID {
		t.Errorf("--again reused run %s", first.ID)
	}
	// --again keeps the earlier results: the new run's are named with its id.
	if got, _ := LoadRun(ctx, db, second.ID); got.Settings.Out != "/data/pans.csv."+second.ID+".results.csv" {
		t.Errorf("--again run's results = %q, want /data/pans.csv.%s.results.csv", got.Settings.Out, second.ID)
	}

	// The same path with other content: an edited file, refused unless --again.
	edited := q
	edited.SHA256 = "v2"
	var ed *EditedInputError
	if _, err := st.Plan(ctx, edited); !errors.As(err, &ed) || !errors.Is(err, ErrRefused) || ed.Name != "pans.csv" {
		t.Errorf("Plan(edited file) = %v; want *EditedInputError naming pans.csv", err)
	}
	edited.Again = true
	if p, err := st.Plan(ctx, edited); err != nil || p.Continue {
		t.Errorf("Plan(edited file, --again) = %+v, %v; want a new run", p, err)
	}
	// Another file: a new run.
	fresh := q
	fresh.Input, fresh.SHA256 = "/data/other.csv", "v3"
	if p, err := st.Plan(ctx, fresh); err != nil || p.Continue {
		t.Errorf("Plan(new file) = %+v, %v; want a new run", p, err)
	}
}

func TestRunReadInputRefusesAChangedFile(t *testing.T) {
	path := panCSV(t, 2)
	table, err := ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{ID: "READ1", InputPath: path, InputSHA256: table.SHA256}
	if _, err := r.ReadInput(); err != nil {
		t.Fatalf("ReadInput(unchanged) = %v", err)
	}
	r.InputSHA256 = "0000"
	var ce *InputChangedError
	if _, err := r.ReadInput(); !errors.As(err, &ce) {
		t.Errorf("ReadInput(changed) = %v; want *InputChangedError", err)
	}
}

func TestSetsString(t *testing.T) {
	for _, tt := range []struct {
		in   Sets
		want string
	}{
		{nil, "(none)"},
		{Sets{"consent": "Y", "a.b": "1"}, "a.b=1 consent=Y"},
	} {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Sets(%v).String() = %q, want %q", map[string]string(tt.in), got, tt.want)
		}
	}
}

// TestRecheckUsesItsClock: with the clock an hour ahead, rows just sent are
// older than a 30-minute minimum wait and are looked up; sent and done
// stamps come from the Runner's clock.
func TestRecheckAndRunnerUseTheirClocks(t *testing.T) {
	fx := newFixture(t, 20, bulktest.Options{Pending: 1})
	ctx := context.Background()
	sent := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	r := fx.runner(2)
	r.Now = func() time.Time { return sent }
	if _, err := r.Execute(ctx, fx.run, fx.rows); err != nil {
		t.Fatal(err)
	}
	for line, e := range fx.entries(t) {
		if !e.SentAt.Equal(sent) {
			t.Fatalf("line %d sent at %s, want the runner's clock %s", line, e.SentAt, sent)
		}
	}
	rc := &Rechecker{DB: fx.db, Client: fx.client, Log: quietLog(), MinWait: 30 * time.Minute}
	if s, err := rc.Recheck(ctx, fx.run); err != nil || s.TooYoung != 20 {
		t.Fatalf("Recheck(real clock) = %+v, %v; want all 20 too young", s, err)
	}
	rc.Now = func() time.Time { return sent.Add(time.Hour) }
	if s, err := rc.Recheck(ctx, fx.run); err != nil || s.TooYoung != 0 || s.Checked != 20 {
		t.Fatalf("Recheck(clock an hour ahead) = %+v, %v; want all 20 looked up", s, err)
	}
}
