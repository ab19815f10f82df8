package export

import (
	"slices"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// legendEntry explains one code name of the workbook in one plain sentence
// and says what to do about it.
type legendEntry struct {
	Term, Kind, Meaning, Action string
}

// The kinds of the legend's terms.
const (
	legendOutcome = "outcome (Matching)"
	legendBreak   = "break kind (Breaks)"
	legendBucket  = "age in days (Unsettled)"
	legendFee     = "fee kind (Fees)"
	legendColumn  = "column"
	legendField   = "field (Differences)"
	legendSetting = "setting of this run"
)

// legend is the text of the Legend sheet: every matching outcome, break
// kind and aging bucket (a test checks that none is missing), then the
// derived columns that need a word.
var legend = []legendEntry{
	{recon.Matched, legendOutcome,
		"The call and its statement debit agree: same order, same amount.",
		"Nothing."},
	{recon.AmountMismatch, legendOutcome,
		"The call and its statement debit are the same order, but the amounts differ (delta = call − statement).",
		"Ask the service which amount was charged; dispute the debit if the statement is wrong."},
	{recon.CallOnly, legendOutcome,
		"A call debited the pool, but no statement record carries its order.",
		"Sync the statement again (it may be posted late); if it stays, ask the service. A suggestedPair names a likely statement record."},
	{recon.StatementOnly, legendOutcome,
		"A statement debit has no logged call.",
		"Find the call (another client, a lost call log) and import its log; else dispute the debit."},
	{recon.DuplicateDebit, legendOutcome,
		"One externalRef was debited more than once.",
		"Claim the extra debit back from the service."},
	{recon.Pending, legendOutcome,
		"The call's outcome is not known yet (TUP, a time-out or no answer).",
		"Let reconcile run look it up with the transaction-status operation; never send it again blindly."},
	{recon.Reversed, legendOutcome,
		"The statement debit was reversed by a credit record.",
		"Nothing when the reversal is linked; see the Reversals sheet for unlinked ones."},
	{recon.Timing, legendOutcome,
		"A break across the period's edge: a call in its last minutes whose record the next day's statement, not synced yet, should bring (or a record in its first minutes whose call the day before's log, not imported yet, should); counted apart, not as a break.",
		"Nothing: the next night's run resolves its exception when the other side arrives (the record synced, the call imported); a check of the same day again matches it, or shows it as callOnly or statementOnly if the other side never came."},
	{recon.BreakArithmetic, legendBreak,
		"A call's own pool figures do not add up: opening − amount ≠ closing (delta = expected − actual closing).",
		"Report the call and its orderid to the service: the balance it returned is wrong."},
	{recon.BreakGap, legendBreak,
		"The pool balance moved between two calls and no statement record explains it (delta = previous closing − this opening; positive: money left the pool).",
		"Sync the statement again and import every call log; if it stays, ask the service for the pool's movements between the two calls."},
	{recon.BreakExplainedGap, legendBreak,
		"The pool balance moved between two calls, and statement records with no logged call sum to the move exactly; explainedBy names them.",
		"Nothing for reversal credits; for a debit with no logged call, find who made the call."},
	{"0-1", legendBucket,
		"A collect order unsettled for 0 or 1 day on the as-of date.",
		"Nothing yet: settlement usually follows within a day."},
	{"2-3", legendBucket,
		"A collect order unsettled for 2 or 3 days.",
		"Check it again on the next run."},
	{"4-7", legendBucket,
		"A collect order unsettled for 4 to 7 days.",
		"Ask the service about its settlement."},
	{"8-30", legendBucket,
		"A collect order unsettled for 8 to 30 days.",
		"Escalate to the service with the svcOrderId."},
	{">30", legendBucket,
		"A collect order unsettled for more than 30 days (highlighted).",
		"Escalate, and treat it as your policy for old receivables says."},
	{"suggestedPair", legendColumn,
		"A callOnly call and a statementOnly record that are probably the same debit (same pool, same amount, agreeing product, close in time); never counted as matched.",
		"Compare the two rows; if they are one debit, fix the call log's key and check again."},
	{"group", legendColumn,
		"The id of a group matched as one: a call posted as several records (G- and its externalRef), or several calls settled in one record (G- and its svcOrderId), whose parts sum exactly to the whole; each part's row is matched and its note names the parts.",
		"Nothing; a part that does not sum is left as the break it is."},
	{recon.DiffAmount, legendField,
		"A call and the record linked to it by key disagree on the amount (difference = call − txnChargedValue).",
		"As for amountMismatch: ask the service which amount was charged."},
	{recon.DiffProduct, legendField,
		"The record's productCode is not the one most rows of the call's operation show (callValue: the operation's, statementValue: the record's).",
		"Ask the service why the debit was booked under another product; it may be priced differently."},
	{recon.DiffStatus, legendField,
		"The call succeeded and debited the pool, but the statement's record says another status than SUCCESS.",
		"Ask the service whether the debit stands; claim it back if the transaction failed."},
	{recon.DiffTime, legendField,
		"The record is further from its call in time than the pair window (difference = record − call).",
		"Nothing when the service posted it late; else check the call log's clock."},
	{"reversalFound", legendColumn,
		"FALSE: the record is marked reversed, but its reversal record was not synced (the row is red).",
		"Sync the statement days after the reversal; ask the service if it stays missing."},
	{"beforePeriod", legendColumn,
		"TRUE: the order is dated before the period and still unsettled on the as-of date, so Unsettled lists it though Orders shows only the period's orders.",
		"Settle or escalate it like any other unsettled order."},
}

// settingsLegend explains the run's matching settings (none for a run
// made before they were kept): the suggested pairs' window and amount
// tolerances, and the timing window.
func settingsLegend(m *recon.MatchSettings) []legendEntry {
	if m == nil {
		return nil
	}
	timing := "No break is timing (--timing-window 0)."
	if m.TimingWindow != "0s" && m.TimingWindow != "" {
		timing = "A call with no record in the last " + m.TimingWindow + " of the period, while no statement record after the period is stored, is timing; " +
			"so is a record with no call in the first " + m.TimingWindow + " while no call before the period is stored."
	}
	return []legendEntry{
		{"pair tolerance", legendSetting,
			"A suggested pair is at most " + m.PairWindow + " apart, with " + m.PairRule + " (--pair-window, --pair-tolerance " +
				m.PairAmount + ", --pair-tolerance-percent " + m.PairPercent + "); a pair within the tolerance says by how much it differs.",
			"Widen it to find pairs a rounding or a fee hides; every pair stays a suggestion, never a match."},
		{"timing window", legendSetting, timing,
			"Nothing: the next night's run resolves a timing exception when its other side arrives; --timing-window 0 turns timing off."},
	}
}

// legendSheet is the Legend sheet (the workbook only: no CSV file): the
// fixed entries, then the run's settings.
func legendSheet(s *recon.Summary) sheet {
	cols := []Column{{"term", Text, false}, {"kind", Text, false}, {"meaning", Prose, false}, {"whatToDo", Prose, false}}
	entries := slices.Concat(legend, feeLegend, settingsLegend(s.Matching))
	rows := func(yield func(Row, error) bool) {
		for _, e := range entries {
			if !yield(Row{Cells: []string{e.Term, e.Kind, e.Meaning, e.Action}}, nil) {
				return
			}
		}
	}
	return sheet{Table{Sheet: "Legend", Columns: cols, Portrait: true}, rows}
}
