package export

import (
	"context"

	"github.com/svcrecon/svcrecon/internal/store"
)

// billerSheets are the Billers sheet (every biller ever seen, removed ones
// greyed) and the Changes sheet (the change log of sync syncID, one row per
// changed field).
func billerSheets(ctx context.Context, db BillerReports, syncID int64) []sheet {
	billers := newSheet("Billers", []Column{
		{"billerId", Text, false},
		{"billerName", Text, false},
		{"categoryKey", Text, false},
		{"type", Text, false},
		{"categoryName", Text, false},
		{"coverageCity", Text, false},
		{"coverageState", Text, false},
		{"coveragePincode", Text, false},
		{"updatedDate", Date, false},
		{"billerStatus", Text, false},
		{"isAvailable", Bool, false},
		{"removed", Bool, false},
		{"removedAt", Stamp, false},
		{"firstSeenAt", Stamp, false},
		{"lastSeenAt", Stamp, false},
	}, rowsOf(db.ReportBillers(ctx), 15, func(b *store.ReportBiller, c []string) Mark {
		c[0], c[1], c[2], c[3], c[4] = b.BillerID, b.BillerName, b.CategoryKey, b.Type, b.CategoryName
		c[5], c[6], c[7], c[8], c[9] = b.CoverageCity, b.CoverageState, b.CoveragePincode, b.UpdatedDate, b.BillerStatus
		c[10], c[11], c[12], c[13], c[14] = boolText(b.IsAvailable), boolText(b.Removed), b.RemovedAt, b.FirstSeenAt, b.LastSeenAt
		if b.Removed {
			return MarkMuted
		}
		return MarkNone
	}))
	changes := sheet{Table{Sheet: "Changes", File: "billers-changes.csv", Columns: []Column{
		{"syncId", Int, false},
		{"at", Stamp, false},
		{"change", Text, false},
		{"billerId", Text, false},
		{"billerName", Text, false},
		{"field", Text, false},
		{"old", Text, false},
		{"new", Text, false},
	}}, rowsOf(db.ReportBillerChanges(ctx, syncID), 8, func(ch *store.ReportBillerChange, c []string) Mark {
		c[0], c[1], c[2], c[3] = id(ch.SyncID), ch.At, ch.Change, ch.BillerID
		c[4], c[5], c[6], c[7] = ch.BillerName, ch.Field, ch.Old, ch.New
		if ch.Change == "removed" {
			return MarkMuted
		}
		return MarkNone
	})}
	return []sheet{billers, changes}
}
