package store

import (
	"context"
	"fmt"
	"strings"
)

// This file keeps the planner's statistics (PostgreSQL's) fit for the
// check: refreshed by this role where it may, through the owner's
// svcrecon_analyze (migration 0105) where it may not, and otherwise a
// warning that names the fix.

// tableStats is what the database says of a table whose statistics this
// role may not refresh.
type tableStats struct {
	name     string
	changed  int64 // rows inserted, updated or deleted since its last ANALYZE
	live     int64 // rows it holds, as counted
	analyzed bool  // ANALYZE (or autovacuum's) ever ran on it
}

// stale reports whether the table changed enough since its last ANALYZE
// for autovacuum's own rule (50 rows and a tenth of the table) to
// analyze it again, or was never analyzed.
func (t tableStats) stale() bool {
	if !t.analyzed {
		return t.live > 0 || t.changed > 0
	}
	return t.changed > 50+t.live/10
}

// StaleStats is the warning of CheckStats that the planner's statistics
// of some tables are stale and the role the database was opened as may
// not refresh them: PostgreSQL lets a table's owner, the database's owner
// or, from version 17, a role granted MAINTAIN run ANALYZE, and the
// owner's function svcrecon_analyze, which does it for the other roles,
// is not theirs to execute. The check goes on, more slowly.
type StaleStats struct {
	DB      string   // the database, without its password
	Tables  []string // the stale tables
	Changed int64    // rows changed since their last ANALYZE, all together
	Never   bool     // one of them was never analyzed
}

func (e *StaleStats) Error() string {
	what := fmt.Sprintf("%d rows changed since the last ANALYZE", e.Changed)
	if e.Never {
		what = "never analyzed"
	}
	t := strings.Join(e.Tables, ", ")
	return fmt.Sprintf("statistics of %s in %s are stale (%s) and this role may not refresh them: the check may be slow; "+
		"ask the tables' owner to GRANT EXECUTE ON FUNCTION svcrecon_analyze(text) to this role, or to run ANALYZE %s after each load",
		t, e.DB, what, t)
}

// refreshStats refreshes the statistics of tables. Where this role may
// not, and they are stale, the error is a *StaleStats: a warning, the
// caller may go on.
func (db *DB) refreshStats(ctx context.Context, tables ...string) error {
	denied, err := db.dialect.analyze(ctx, db.DB, tables)
	if err != nil {
		return err
	}
	w := &StaleStats{DB: db.Path}
	for _, t := range denied {
		if t.stale() {
			w.Tables = append(w.Tables, t.name)
			w.Changed += t.changed
			w.Never = w.Never || !t.analyzed
		}
	}
	if len(w.Tables) == 0 {
		return nil
	}
	return w
}
