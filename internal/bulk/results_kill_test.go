package bulk

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Environment of the results-writer child process.
const (
	envChildDB     = "BULK_RESULTS_CHILD_DB"
	envChildRun    = "BULK_RESULTS_CHILD_RUN"
	envChildOut    = "BULK_RESULTS_CHILD_OUT"
	childWritesRow = 300 // the child stops for good at this row of the results
)

// stallingJournal is a Journal whose second walk of the journal (the
// results' rows, after the walk that finds their columns) announces
// "WRITING" on stdout at row childWritesRow and never returns: the child
// is then in the middle of writing the results.
type stallingJournal struct {
	Journal
	walks int
}

func (j *stallingJournal) EachBulkRow(ctx context.Context, runID string, fn func(store.BulkRow) error) error {
	j.walks++
	n := 0
	return j.Journal.EachBulkRow(ctx, runID, func(r store.BulkRow) error {
		n++
		if j.walks == 2 && n == childWritesRow {
			fmt.Println("WRITING")
			select {} // killed here
		}
		return fn(r)
	})
}

// TestResultsWriterChild is the child process of TestKilledResultsWriter
// LeavesThePreviousFile; it is skipped in a normal run.
func TestResultsWriterChild(t *testing.T) {
	dbPath := os.Getenv(envChildDB)
	if dbPath == "" {
		t.Skip("the child process of TestKilledResultsWriterLeavesThePreviousFile")
	}
	ctx := context.Background()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	run, err := LoadRun(ctx, db, os.Getenv(envChildRun))
	if err != nil {
		t.Fatal(err)
	}
	table, err := run.ReadInput()
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv(envChildOut)
	rs := &Results{DB: &stallingJournal{Journal: db}, Run: run, Table: table, Op: mustOp(t, run.Op)}
	if filepath.Ext(out) == ".xlsx" {
		err = rs.WriteXLSX(ctx, out)
	} else {
		err = rs.WriteCSV(ctx, out)
	}
	t.Fatalf("the child was not killed while writing: %v", err)
}

// A process killed (SIGKILL) while it rewrites the results leaves the
// previous results file whole under its name: the writer writes a
// temporary file beside it and renames it when complete.
func TestKilledResultsWriterLeavesThePreviousFile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	fx := newFixture(t, 600, bulktest.Options{Fail: 0.1})
	ctx := context.Background()
	if _, err := fx.runner(8).Execute(ctx, fx.run, fx.rows); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rs := &Results{DB: fx.db, Run: fx.run, Table: fx.table, Op: mustOp(t, svcapi.OpVerifyPanPlusV2)}
	for _, name := range []string{"results.csv", "results.xlsx"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name)
			var err error
			if name == "results.xlsx" {
				err = rs.WriteXLSX(ctx, out)
			} else {
				err = rs.WriteCSV(ctx, out)
			}
			if err != nil {
				t.Fatal(err)
			}
			good, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestResultsWriterChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), envChildDB+"="+fx.db.Path, envChildRun+"="+fx.run.ID, envChildOut+"="+out)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			writing := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					if sc.Text() == "WRITING" {
						writing <- true
						return
					}
				}
				writing <- false
			}()
			select {
			case ok := <-writing:
				if !ok {
					cmd.Wait()
					t.Fatalf("the child ended without writing: %s", stderr.String())
				}
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the child never reached row %d: %s", childWritesRow, stderr.String())
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			got, err := os.ReadFile(out)
			if err != nil || !bytes.Equal(got, good) {
				t.Fatalf("after the kill, %s = %d bytes, %v; want the previous %d bytes unchanged", name, len(got), err, len(good))
			}
			left, _ := filepath.Glob(filepath.Join(dir, "."+name+".*"))
			if name == "results.csv" && len(left) == 0 {
				t.Error("no temporary file beside the results: the child was not killed in the middle of its write")
			}
			t.Logf("%s: previous file intact; %d temporary file(s) of the killed writer left: %v", name, len(left), left)
		})
	}
}
