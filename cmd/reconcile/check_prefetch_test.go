package main

import (
	"context"
	"errors"
	"iter"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// unreadableDays is the store with the statement's days unreadable to
// the evidence step's reads beside the check: the digests kept of them
// fail with err, then close failed.
type unreadableDays struct {
	*store.DB
	err    error
	failed chan struct{}
	once   sync.Once
}

func (s *unreadableDays) DayDigests(ctx context.Context, k recon.Kind, from, to string) (map[string]evidence.DayDigest, error) {
	s.once.Do(func() { close(s.failed) })
	return nil, s.err
}

// failingCheck is the store with the check's stream of calls failing with
// err once the evidence step's reads have failed (after).
type failingCheck struct {
	*store.DB
	err   error
	after <-chan struct{}
}

func (s *failingCheck) CheckCalls(ctx context.Context, w ledger.Window) iter.Seq2[recon.Call, error] {
	return func(yield func(recon.Call, error) bool) {
		<-s.after
		yield(recon.Call{}, s.err)
	}
}

// TestCheckPrefetchError: the evidence step's reads beside the check
// failing fail the evidence step with their error when the check
// succeeds; when the check fails too, its error is the command's.
func TestCheckPrefetchError(t *testing.T) {
	db := filepath.Join(t.TempDir(), "e.db")
	s, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	check, ev := checkStore, evidenceStore
	t.Cleanup(func() { checkStore, evidenceStore = check, ev })
	readErr, checkErr := errors.New("the statement's days are unreadable"), errors.New("the check's stream broke")
	var failed chan struct{}
	evidenceStore = func(db *store.DB) evidence.Store {
		failed = make(chan struct{})
		return &unreadableDays{DB: db, err: readErr, failed: failed}
	}
	args := []string{"check", "--db", db, "--from", "2026-11-01", "--to", "2026-11-01", "--log-level", "error"}
	_, stderr, err := runCmd(t, args...)
	if err == nil || !strings.HasPrefix(err.Error(), "check: evidence: ") || !strings.Contains(err.Error(), readErr.Error()) {
		t.Errorf("check, the evidence's reads failing: %v, want the evidence step failing with %q\n%s", err, readErr, stderr)
	}

	checkStore = func(db *store.DB, _ *evidence.CallTally) ledger.CheckStore {
		return &failingCheck{DB: db, err: checkErr, after: failed}
	}
	_, stderr, err = runCmd(t, args...)
	if err == nil || !strings.Contains(err.Error(), checkErr.Error()) || strings.Contains(err.Error(), readErr.Error()) {
		t.Errorf("check failing after the evidence's reads: %v, want the check's %q alone\n%s", err, checkErr, stderr)
	}
}
