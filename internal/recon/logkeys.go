package recon

// Log attribute keys that name a run. Each kind of run has its own key, so
// that a log line of a step inside a job (a sync inside the nightly job, the
// check after it) carries both ids without one hiding the other: a key
// given twice in a JSON line is read as the last one.
const (
	LogSyncRun    = "syncRun"    // sync_runs.id: one statement / collect-order sync
	LogBillerSync = "billerSync" // biller_syncs.id: one biller list sync
	LogCheckRun   = "checkRun"   // recon_runs.id: one reconciliation check
	LogBulkRun    = "bulkRun"    // bulk_runs.id: one bulk file run
	LogJobRun     = "jobRun"     // job_runs.id: one run of a scheduled or manual job
	LogJob        = "job"        // the job's name in schedules.yaml
)
