// Package nightly is the nightly reconciliation as one function: sync the
// statement and the collect orders of a period (and of a look-back before
// it, for late settlements), import call logs, check, record the run's
// evidence (its manifest and exceptions), and export the workbook and CSV
// files with manifest.json. `reconcile run` and the scheduler's nightly job
// both call Run.
package nightly

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/export"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/progress"
	"github.com/svcrecon/svcrecon/internal/rates"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/statement"
	"github.com/svcrecon/svcrecon/internal/store"
)

// The steps, in order. A step's name leads the error of Run when it fails.
const (
	StepSync     = "sync"
	StepImport   = "import-calls"
	StepCheck    = "check"
	StepEvidence = "evidence"
	StepExport   = "export"
)

// DefaultOrdersLookback is how many days before the period collect orders
// are synced again by default.
const DefaultOrdersLookback = 45

// CallLogWriter writes a client's call log (the sandbox's). The sandbox
// server satisfies it.
type CallLogWriter interface {
	WriteCallLog(w io.Writer) error
}

// Config is one nightly run.
type Config struct {
	DB      *store.DB
	Client  statement.Fetcher
	Account string // linked account number of the statements

	// From and To are the IST days of the period, inclusive; both zero:
	// yesterday (by Now). AsOf ages unsettled orders (zero: To).
	From, To, AsOf time.Time
	// CallLogs are the call-log files to import (globs already expanded).
	CallLogs []string
	// ClientLog, when set, is written to ClientLogPath and imported before
	// CallLogs (with --sandbox: the sandbox's client call log).
	ClientLog     CallLogWriter
	ClientLogPath string
	// Out is the directory of the reports (created when missing).
	Out string
	// CSVRaw writes CSV text cells as they are, without the formula guard
	// (--csv-raw, for machines that read the files back).
	CSVRaw bool

	Concurrency int  // days synced at once; default 4
	Refresh     bool // sync days of the statement already synced again, every one
	// RecheckDays is how many held days at the end of the period the
	// statement sync walks again in full (older held days are probed):
	// 0 is statement.DefaultRecheckDays, negative none.
	RecheckDays int
	// OrdersLookback is how many days before From collect orders are
	// synced too, again every run: an order is settled after the day it
	// was placed (its record changes). 0 is none; see DefaultOrdersLookback.
	OrdersLookback int
	// FreshDB says the database is new every run (--sandbox): a failed sync
	// is not resumed by the next run, so its error does not say to.
	FreshDB bool
	// Calls counts the client's attempts, for the sync's retries (optional).
	Calls *statement.CallCounter
	// Tolerances are the check's suggested pairs' window (0: the default)
	// and amount tolerances, and its timing window (0: none).
	Tolerances ledger.Tolerances
	// Rates, when set, is the rate card the check prices the debits by
	// (--rates); nil: the fees are not checked.
	Rates *rates.Card
	// Secrets (the client secret) are scrubbed by value from imported call logs.
	Secrets []string
	// CompleteThrough, when set, declares before the check that the call
	// logs imported hold every call through that day (run
	// --complete-through; --sandbox: the sandbox's log is its whole
	// history), recorded as CoverageSource.
	CompleteThrough time.Time
	CoverageSource  string

	Log      *slog.Logger     // default: discard
	Progress io.Writer        // progress bars (nil: none)
	OnStep   func(Step)       // called as each step ends (optional)
	Now      func() time.Time // the clock of the default period and the check; default time.Now
}

// Step is what one step did, reported to Config.OnStep as it ends.
type Step struct {
	Name string // StepSync, StepImport, StepCheck or StepExport
	// Line says what the step did, in one line; "" when it failed.
	Line string
	// Warnings are the problems it met that did not stop it (windows that
	// failed, bad call-log lines), one line each.
	Warnings []string
}

// SyncStep is one sync of the run: the statement, or the collect orders.
type SyncStep struct {
	Label    string // "statement" or "collect orders"
	Kind     recon.Kind
	From, To time.Time
	statement.Summary
}

// Summary is what a run did. On error it holds the steps done before.
type Summary struct {
	From, To time.Time
	Syncs    []SyncStep
	// CallLogs are the call-log files imported (none: nothing imported).
	CallLogs []string
	Import   calllog.Summary
	Report   *ledger.Report   // nil until the check is done
	Evidence *evidence.Result // nil until the evidence is recorded
	Files    export.Files
	Manifest string // manifest.json written beside the reports ("" none)
	Steps    []Step // the steps ended, in order
}

// Period is the run's period, FROM..TO.
func (s *Summary) Period() string {
	return s.From.Format(recon.DateLayout) + ".." + s.To.Format(recon.DateLayout)
}

// Findings is a one-line account of what the check found ("" before the check).
func (s *Summary) Findings() string {
	if s.Report == nil {
		return ""
	}
	return Findings(s.Report)
}

// Line is the run in one line: its period and the counts of its findings.
func (s *Summary) Line() string {
	return fmt.Sprintf("run %s: %s", s.Period(), s.Findings())
}

// Empty reports whether the check found nothing to reconcile: no call and
// no statement record in the period (false before the check).
func (s *Summary) Empty() bool {
	if s.Report == nil || s.Report.Summary.Calls > 0 {
		return false
	}
	for _, o := range s.Report.Summary.Outcomes {
		if o.Count > 0 {
			return false
		}
	}
	return true
}

// String is the summary a job records: each step's line, then Line (the
// last line: what the job history shows).
func (s *Summary) String() string {
	var b strings.Builder
	for _, st := range s.Steps {
		if st.Line != "" {
			fmt.Fprintf(&b, "%s %s\n", st.Name, st.Line)
		}
	}
	if s.Report != nil {
		b.WriteString(s.Line())
	}
	return strings.TrimSpace(b.String())
}

// Run runs the night: sync, import-calls, check, evidence, export, in that
// order, stopping at the first step that fails; the error begins with the
// step's name ("sync: …", "import-calls: …", "check: …", "evidence: …",
// "export: …"). Bad call-log lines do not stop the run: they are counted
// in Summary.Import.Bad (and Warnings), and the reports are written.
// Started again after a failure, a run skips the days already synced and
// the lines already imported; the check replaces the period's results.
func Run(ctx context.Context, c Config) (Summary, error) {
	c.defaults()
	sum := Summary{From: c.From, To: c.To}
	step := func(st Step) {
		sum.Steps = append(sum.Steps, st)
		if c.OnStep != nil {
			c.OnStep(st)
		}
	}
	if err := syncAll(ctx, &c, &sum, step); err != nil {
		return sum, err
	}
	if err := importCalls(ctx, &c, &sum, step); err != nil {
		return sum, fmt.Errorf("%s: %w", StepImport, err)
	}
	if err := declareCoverage(ctx, &c); err != nil {
		return sum, fmt.Errorf("%s: %w", StepImport, err)
	}
	pre := PrefetchEvidence(ctx, c.DB, c.From, c.To)
	defer pre.Stop()
	rep, err := ledger.Check(ctx, c.DB.TallyCalls(pre.Calls()), ledger.CheckOptions{From: c.From, To: c.To, AsOf: c.AsOf, Now: c.Now, Log: c.Log,
		PairWindow: c.Tolerances.PairWindow, PairAmount: c.Tolerances.Amount, PairPercent: c.Tolerances.Percent,
		TimingWindow: c.Tolerances.Timing, Rates: c.Rates})
	if err != nil {
		return sum, fmt.Errorf("%s: %w", StepCheck, err)
	}
	sum.Report = rep
	step(Step{Name: StepCheck, Line: fmt.Sprintf("run %d: %s", rep.RunID, Findings(rep))})
	settings := Settings(c.Tolerances, c.OrdersLookback, c.RecheckDays)
	settings.RateCard = RateCardSetting(c.Rates)
	if sum.Evidence, err = RecordEvidence(ctx, c.DB, rep, settings, fetched(&sum), c.Now, pre); err != nil {
		return sum, fmt.Errorf("%s: %w", StepEvidence, err)
	}
	step(Step{Name: StepEvidence, Line: EvidenceLine(sum.Evidence)})
	if err := exportStep(ctx, &c, &sum); err != nil {
		return sum, fmt.Errorf("%s: %w", StepExport, err)
	}
	step(Step{Name: StepExport, Line: fmt.Sprintf("%d files in %s (workbook %s; %s)", len(sum.Files.Paths()), c.Out,
		sum.Files.Workbook, sum.Manifest)})
	return sum, nil
}

// exportStep writes the workbook and the CSV files, and the run's
// manifest beside them.
func exportStep(ctx context.Context, c *Config, sum *Summary) error {
	var err error
	sum.Files, err = export.Reconciliation(ctx, c.DB, export.Options{
		From: c.From, To: c.To, Dir: c.Out, Format: export.FormatBoth, Log: c.Log, Progress: c.Progress, CSVRaw: c.CSVRaw,
		Evidence: WorkbookEvidence(c.DB),
	})
	if err != nil {
		return err
	}
	sum.Manifest, err = WriteManifest(ctx, c.DB, sum.Files, c.Out, c.Now(), c.Log)
	return err
}

// declareCoverage records Config.CompleteThrough.
func declareCoverage(ctx context.Context, c *Config) error {
	if c.CompleteThrough.IsZero() {
		return nil
	}
	return c.DB.DeclareCoverage(ctx, c.CompleteThrough.Format(recon.DateLayout), c.Now(), c.CoverageSource)
}

// fetched is what the run's syncs fetched, for the manifest.
func fetched(sum *Summary) []evidence.Fetched {
	var out []evidence.Fetched
	for _, s := range sum.Syncs {
		out = append(out, evidence.Fetched{Kind: string(s.Kind), From: s.From.Format(recon.DateLayout), To: s.To.Format(recon.DateLayout),
			RecordsNew: s.New, RecordsUpdated: s.Updated, RecordsLate: s.Late, Pages: s.Pages, Windows: s.Windows,
			WindowsFailed: s.WindowsFailed})
	}
	return out
}

func (c *Config) defaults() {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	if c.From.IsZero() && c.To.IsZero() {
		y, m, d := c.Now().In(recon.IST).AddDate(0, 0, -1).Date()
		c.From = time.Date(y, m, d, 0, 0, 0, 0, recon.IST)
		c.To = c.From
	}
}

// syncAll syncs the statement of the period, and the collect orders of the
// period and of the look-back days before it, walked again every time.
func syncAll(ctx context.Context, c *Config, sum *Summary, step func(Step)) error {
	for _, s := range []struct {
		kind    recon.Kind
		label   string
		from    time.Time
		refresh bool
	}{
		{recon.Statement, "statement", c.From, c.Refresh},
		{recon.Orders, "collect orders", c.From.AddDate(0, 0, -c.OrdersLookback), true},
	} {
		keeper := evidence.KeepDays(ctx, c.DB, c.Log)
		res, err := statement.Sync(ctx, statement.Options{
			DB: c.DB, Client: c.Client, Account: c.Account, From: s.from, To: c.To, Kinds: []recon.Kind{s.kind},
			Concurrency: c.Concurrency, Refresh: s.refresh, RecheckDays: c.RecheckDays, Calls: c.Calls,
			DayEnded: keeper.Ended, Log: c.Log, Progress: c.Progress, Now: c.Now,
		})
		keeper.Close()
		st := Step{Name: StepSync}
		for _, p := range res.Problems {
			st.Warnings = append(st.Warnings, "window: "+p.String())
		}
		if err != nil {
			step(st)
			if c.FreshDB { // the next run starts afresh anyway
				return fmt.Errorf("%s: %s: %w", StepSync, s.label, err)
			}
			return fmt.Errorf("%s: %s: %w (start the run again to resume)", StepSync, s.label, err)
		}
		sum.Syncs = append(sum.Syncs, SyncStep{Label: s.label, Kind: s.kind, From: s.from, To: c.To, Summary: res})
		st.Line = fmt.Sprintf("%s %s..%s: %s", s.label, s.from.Format(recon.DateLayout), c.To.Format(recon.DateLayout), res.Line())
		step(st)
	}
	return nil
}

// importCalls writes the client log, when there is one, and imports it
// and the call logs.
func importCalls(ctx context.Context, c *Config, sum *Summary, step func(Step)) error {
	files := c.CallLogs
	if c.ClientLog != nil {
		if err := writeCallLog(c.ClientLog, c.ClientLogPath); err != nil {
			return err
		}
		files = append([]string{c.ClientLogPath}, files...)
	}
	sum.CallLogs = files
	if len(files) == 0 {
		c.Log.Warn("no call logs given (--calls): the check sees only calls imported before and svcrecon's own")
		step(Step{Name: StepImport, Line: "no call logs given (--calls)"})
		return nil
	}
	var bar *progress.Bar
	if c.Progress != nil {
		bar = progress.New(c.Progress, StepImport, 0, c.Log)
	}
	isum, err := calllog.ImportFiles(ctx, c.DB, files, calllog.Options{Log: c.Log, Progress: bar, Secrets: c.Secrets})
	bar.Done()
	sum.Import = isum
	st := Step{Name: StepImport}
	for _, e := range isum.Errors {
		st.Warnings = append(st.Warnings, e.Error())
	}
	if err != nil {
		step(st)
		return err
	}
	st.Line = isum.String()
	step(st)
	return nil
}

// writeCallLog writes a call log to path, whole or not at all, readable by
// its owner only (it holds the calls' redacted requests and answers).
func writeCallLog(w CallLogWriter, path string) error {
	return export.WriteFile(path, 0o600, nil, w.WriteCallLog)
}

// Finding is one kind of finding of a check and how many there are.
type Finding struct {
	Name  string // a break kind or outcome (gap, callOnly, …), "reversal not found", "unsettled orders", a fee kind, "unpriced products"
	Key   string // the same as a JSON key: gap, callOnly, reversalNotFound, unsettled, overcharged, undercharged, unpriced
	Count int
}

// FindingCounts lists what a check found, kind by kind (those counted at
// least once), in the order finance reads them: breaks, exceptions, then
// what is left to look at.
func FindingCounts(rep *ledger.Report) []Finding {
	s := rep.Summary
	var out []Finding
	add := func(n int, name, key string) {
		if n > 0 {
			out = append(out, Finding{Name: name, Key: key, Count: n})
		}
	}
	add(s.Breaks[recon.BreakArithmetic].Count, recon.BreakArithmetic, recon.BreakArithmetic)
	add(s.Breaks[recon.BreakGap].Count, recon.BreakGap, recon.BreakGap)
	for _, o := range []string{recon.AmountMismatch, recon.DuplicateDebit, recon.CallOnly, recon.StatementOnly} {
		add(s.Outcomes[o].Count, o, o)
	}
	add(s.Pending.Count, "pending", "pending")
	add(s.Reversals.Unlinked, "reversal not found", "reversalNotFound")
	unsettled := 0
	for _, b := range recon.BucketNames() {
		unsettled += s.Unsettled[b].Count
	}
	add(unsettled, "unsettled orders", "unsettled")
	add(s.Outcomes[recon.Timing].Count, "timing (apart)", recon.Timing)
	if f := s.Fees; f != nil {
		add(f.Kinds[recon.Overcharged].Count, recon.Overcharged, recon.Overcharged)
		add(f.Kinds[recon.Undercharged].Count, recon.Undercharged, recon.Undercharged)
		add(f.UnpricedProducts, "unpriced products", recon.Unpriced)
	}
	return out
}

// Findings is a one-line account of what a check found: "no findings",
// "findings: 2 gap, 1 duplicateDebit, …", or "no breaks; to look at: …"
// when only pending calls, unlinked reversals, unsettled orders or timing
// differences are left.
func Findings(rep *ledger.Report) string {
	var parts []string
	for _, f := range FindingCounts(rep) {
		parts = append(parts, fmt.Sprintf("%d %s", f.Count, f.Name))
	}
	if len(parts) == 0 {
		return "no findings"
	}
	head := "findings"
	if !rep.HasFindings() {
		head = "no breaks; to look at"
	}
	return head + ": " + strings.Join(parts, ", ")
}
