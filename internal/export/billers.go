package export

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// lastBillerSync returns the id of the newest biller sync that finished ok
// (else the newest of any state; 0 when there was none).
func lastBillerSync(ctx context.Context, db *sql.DB) (int64, error) {
	var id int64
	err := db.QueryRowContext(ctx, `SELECT id FROM biller_syncs
		ORDER BY state = 'ok' DESC, id DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("find last biller sync: %w", err)
	}
	return id, nil
}

// billerSheets are the Billers sheet (every biller ever seen, removed ones
// greyed) and the Changes sheet (the change log of sync syncID, one row per
// changed field).
func billerSheets(syncID int64) []sheet {
	billers := sheet{
		name: "Billers", file: "billers.csv",
		cols: []column{
			{"billerId", kText, false},
			{"billerName", kText, false},
			{"categoryKey", kText, false},
			{"type", kText, false},
			{"categoryName", kText, false},
			{"coverageCity", kText, false},
			{"coverageState", kText, false},
			{"coveragePincode", kText, false},
			{"updatedDate", kDate, false},
			{"billerStatus", kText, false},
			{"isAvailable", kBool, false},
			{"removed", kBool, false},
			{"removedAt", kStamp, false},
			{"firstSeenAt", kStamp, false},
			{"lastSeenAt", kStamp, false},
		},
		query: `SELECT biller_id, biller_name, category_key, type, category_name, coverage_city,
			coverage_state, coverage_pincode, updated_date, biller_status, is_available, removed,
			removed_at, first_seen_at, last_seen_at
			FROM billers ORDER BY removed, category_name, biller_name, biller_id`,
		mark: func(v []sql.NullString) mark {
			if v[11].String == "1" {
				return markMuted
			}
			return markNone
		},
	}
	value := func(i int) string {
		return fmt.Sprintf(`CASE json_type(j.value, '$[%[1]d]') WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
			WHEN 'null' THEN '' ELSE json_extract(j.value, '$[%[1]d]') END`, i)
	}
	changes := sheet{
		name: "Changes", file: "billers-changes.csv",
		cols: []column{
			{"syncId", kInt, false},
			{"at", kStamp, false},
			{"change", kText, false},
			{"billerId", kText, false},
			{"billerName", kText, false},
			{"field", kText, false},
			{"old", kText, false},
			{"new", kText, false},
		},
		query: `SELECT ch.sync_id, ch.at, ch.change, ch.biller_id, COALESCE(b.biller_name, ''),
			COALESCE(j.key, ''), COALESCE(` + value(0) + `, ''), COALESCE(` + value(1) + `, '')
			FROM biller_changes ch
			LEFT JOIN billers b ON b.biller_id = ch.biller_id
			LEFT JOIN json_each(CASE WHEN json_valid(ch.fields) AND json_type(ch.fields) = 'object'
				THEN ch.fields ELSE '{}' END) j
			WHERE ch.sync_id = ? ORDER BY ch.id, j.key`,
		args: []any{syncID},
		mark: func(v []sql.NullString) mark {
			if v[2].String == "removed" {
				return markMuted
			}
			return markNone
		},
	}
	return []sheet{billers, changes}
}
