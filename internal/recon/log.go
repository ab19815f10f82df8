package recon

// Log attribute keys that name a run, one per kind of run, so that a log
// line says which kind of run its id belongs to (a sync run, a
// reconciliation check, a bulk run and a scheduled job's run all number
// from 1).
const (
	LogSyncRun  = "syncRun"  // statement sync windows' run (sync_runs)
	LogCheckRun = "checkRun" // reconciliation check run (recon_runs)
	LogBulkRun  = "bulkRun"  // bulk run (bulk_runs)
	LogJobRun   = "jobRun"   // a scheduled or manual job's run (job_runs)
)
