package main

import (
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/store"
)

// A worker killed on another host (its heartbeat stops, by the database's
// clock) with four rows in flight — two of them executed by the service,
// two lost on their way — and four claimed ahead (never sent) leaves its
// run running. bulkrun status sweeps it (interrupted, the eight rows
// pending); bulkrun resume looks them up and sends the six never executed
// with the rest: the run finishes, every
// row executed once, without settle.
func TestDeadWorkerOfAnotherHostIsSweptAndResumeFinishes(t *testing.T) {
	g := newGate(4)
	var mu sync.Mutex
	var held []string
	lost := map[string]bool{}
	ended := make(chan string, 100)
	// The rows' sent_at is set below to sent, 2 min 5 s before the test
	// began, and the service dates every call at sent (a microsecond apart
	// each): the calls are on the day the journal says they were sent,
	// whenever the test runs. (With the service's own clock, a run in the
	// first seconds after midnight IST had them a day apart from their rows,
	// found never executed and sent again; with its clock set back by as
	// much, a midnight between the calls and the rows' update did.)
	sent := time.Now().Add(-2*time.Minute - 5*time.Second)
	var tick atomic.Int64
	srv := bulktest.Start(bulktest.Options{
		Now: func() time.Time { return sent.Add(time.Duration(tick.Add(1)) * time.Microsecond) },
		Before: func(ref string, body map[string]any) {
			mu.Lock()
			held = append(held, ref)
			mu.Unlock()
			g.before(ref, body)
		},
		Lost: func(ref string) bool { // the first two held, once
			mu.Lock()
			defer mu.Unlock()
			if len(held) < 4 || ref != held[0] && ref != held[1] || lost[ref] {
				return false
			}
			lost[ref] = true
			return true
		},
		After: func(ref string) { ended <- ref },
	})
	defer srv.Close()
	defer g.open()
	setEnv(t, srv.Environ())
	dir := t.TempDir()
	in := writeInput(t, dir, 20)
	dbPath := filepath.Join(dir, "bulk.db")
	cmd := startHeld(t, g, srv, in, dbPath)
	settledSending(t, dbPath, runID(t, dbPath), 8) // four calls held, four rows claimed ahead
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	g.open()
	for range 4 {
		<-ended // two executed, two lost
	}
	// The process was on another host: its pid means nothing here, and its
	// heartbeat and rows are as old as its death.
	db := openDB(t, dbPath)
	old := store.FormatTime(sent)
	if _, err := db.Exec(`UPDATE bulk_leases SET host = 'otherhost', heartbeat = ?`, old); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE bulk_rows SET sent_at = ? WHERE state = 'sending'`, old); err != nil {
		t.Fatal(err)
	}
	id := runID(t, dbPath)

	code, stdout, stderr := runCLIEnv(t, nil, "status", id, "--db", dbPath)
	if code != 0 || !strings.Contains(stdout, "run "+id+": the process working on it is gone (host otherhost") ||
		!strings.Contains(stdout, "its 8 rows in flight are pending") || !strings.Contains(stdout, ", "+bulk.RunInterrupted+"\n") {
		t.Fatalf("status: exit %d; want the dead worker swept, the run interrupted\n%s%s", code, stdout, stderr)
	}
	if c := counts(t, dbPath, id); c.Pending != 8 || c.Sending != 0 {
		t.Errorf("after status: %+v; want the 8 rows pending, none sending", c)
	}
	code, stdout, stderr = runCLIEnv(t, nil, "resume", id, "--db", dbPath, "--log-level", "error")
	if code != cli.ExitOK || !strings.Contains(stdout, "8 rows a dead process left were looked up: 2 success, 0 failed, 6 never executed (sent now)") {
		t.Fatalf("resume: exit %d; want the 8 rows looked up and the run finished\n%s%s", code, stdout, stderr)
	}
	if c := counts(t, dbPath, id); c.Success != 20 {
		t.Errorf("after resume: %+v; want every row success", c)
	}
	if srv.Requests() != 20 {
		t.Errorf("the service executed %d requests, want 20 (each row once)", srv.Requests())
	}
}
