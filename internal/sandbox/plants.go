package sandbox

// The matching's planted cases (issue 27), each once in a history with
// defects:
//
//   - onePaisa: a transfer whose line lost its keys (as orphanPair) and
//     whose record is one paisa short of it (its orderValue too, so that
//     the rate card finds the fee right): callOnly and statementOnly, a
//     suggested pair only within a tolerance (--pair-tolerance 0.01), which
//     says by how much it differs;
//   - splitPosting: a gift card order whose debit is posted as two records
//     of its externalRef (the first with its orderid), four fifths and one
//     fifth of it: one group, matched, not three breaks;
//   - midnight: the period's last call, at 23:58:30, whose record posts at
//     00:06:10 the next day: timing while that day is not synced.
//
// All on the period's last day (with reversalUnlinked), so that the days
// before are what they were. The split posting's second record is a slot
// of its own right after the call's (sSplitPart: no call, no pool debit,
// the call took it); the midnight call's record is the post day's slot
// after the reversal credit (sMidnightRec).

// Planted amounts (paise) and times (seconds of the IST day).
const (
	paisaDelta     = 1     // call − statement of the onePaisa defect
	midnightSec    = 86310 // 23:58:30, the midnight call
	midnightRecSec = 370   // 00:06:10 the next day, its record (after the reversal credit at 00:05)
)

// splitPartOf is the second part of a split posting of amount (paise).
func splitPartOf(amount int64) int64 { return amount / 5 }

// Defect kinds of the matching's planted cases.
const (
	DefectOnePaisa     = "onePaisa"
	DefectSplitPosting = "splitPosting"
	DefectMidnight     = "midnight"
)

// midnightCall is the planted midnight call, for its record on the post
// day.
type midnightCall struct {
	amount   int64 // paise (0: none planted)
	slot     int32 // its slot on the last day
	prod     uint8
	ref, svc string // its externalRef and orderid
}

// splitPart is the second record of split posting s (slot idx).
func splitPart(s *slot, idx int32) slot {
	part := splitPartOf(s.amount)
	return slot{kind: sSplitPart, amount: part, extra: part, refOf: s.refOf, link: idx, prod: s.prod, flags: flagStrict}
}
