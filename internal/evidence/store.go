package evidence

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// Store is what evidence reads and writes; *store.DB implements it, on
// either engine.
type Store interface {
	// EvidenceRun returns a reconciliation run (found false when there is
	// no such run).
	EvidenceRun(ctx context.Context, runID int64) (RunInfo, bool, error)
	// EvidenceFindings yields the findings of a run: its arithmetic and gap
	// breaks, its matching rows other than matched and reversed, its
	// reversals whose reversal record was not found, its unsettled orders.
	EvidenceFindings(ctx context.Context, runID int64) iter.Seq2[Finding, error]
	// EvidenceRecords yields the records of kind k dated from..to
	// (YYYY-MM-DD, inclusive) in the order of a day's canonical lines
	// (dayDigest): by account, txnDateTime and svcOrderId, each compared
	// bytewise. (A value with a control character may still put a line
	// out of that order: the digest checks and sorts such a day.) The
	// record yielded is the stream's own: it holds until the next one.
	EvidenceRecords(ctx context.Context, k recon.Kind, from, to string) iter.Seq2[*recon.Record, error]
	// DayDigests returns the digests kept of kind k's days from..to that
	// still hold (computed at the day's current version), by day.
	DayDigests(ctx context.Context, k recon.Kind, from, to string) (map[string]DayDigest, error)
	// DayVersions returns the current version of kind k's days from..to
	// (a day never written is absent: version 0).
	DayVersions(ctx context.Context, k recon.Kind, from, to string) (map[string]int64, error)
	// SaveDayDigests keeps digests, each for the version it was computed at.
	SaveDayDigests(ctx context.Context, ds []DayDigest) error
	// EvidenceCalls yields the calls of the period (by ts, from..to IST
	// days): pool account, whether it debited (success with a pool
	// object), and its pool amount.
	EvidenceCalls(ctx context.Context, from, to string) iter.Seq2[CallAmount, error]
	// EvidenceCallCount counts the calls EvidenceCalls yields.
	EvidenceCallCount(ctx context.Context, from, to string) (int, error)
	// EvidenceCallSources lists the call-log files whose calls (first to
	// last ts) reach into the period, by name.
	EvidenceCallSources(ctx context.Context, from, to string) ([]CallSource, error)
	// EvidenceKeptCalls lists, per source, the line hashes of the period's
	// calls whose lines are kept in the database (standard input;
	// svcrecon's own calls with a pool object), in time order.
	EvidenceKeptCalls(ctx context.Context, from, to string) ([]KeptCalls, error)
	// EvidenceDayWalks says, per day of from..to that has any, how many
	// windows of kind k were walked and how many are done.
	EvidenceDayWalks(ctx context.Context, k recon.Kind, from, to string) ([]DayWalk, error)
	// EvidenceRecordArrived says whether a statement debit record with
	// svcOrderId orderID (when set), else clientOrderId ref, is stored.
	EvidenceRecordArrived(ctx context.Context, orderID, ref string) (bool, error)
	// EvidenceCallArrived says whether a call with orderid svcOrderID, or
	// with the externalRef that is the clientOrderId of the statement
	// record svcOrderID, is stored (read-only operations' calls aside).
	EvidenceCallArrived(ctx context.Context, svcOrderID string) (bool, error)
	// EvidenceLastCall is the ts of the latest call logged by a client
	// (any source but svcrecon's own calls) or with a pool object ("" none).
	EvidenceLastCall(ctx context.Context) (string, error)
	// EvidenceCoverage is the latest day declared covered by the call logs
	// ("" none); DeclareCoverage records such a declaration.
	EvidenceCoverage(ctx context.Context) (string, error)
	DeclareCoverage(ctx context.Context, through string, at time.Time, source string) error

	// ApplyEvidence writes c in one transaction: the exceptions new and
	// changed, the sightings, the events (each linked with Chain after the
	// last one appended), and the manifest with the chain's head after them.
	// With c.Guard set it returns ErrMoved, writing nothing, when the
	// chain's head is no longer c.Base, or the last sighting of an
	// exception it updates is no longer the one in c.Read.
	ApplyEvidence(ctx context.Context, c Changes) error
	// EvidenceHead is the sequence number of the chain's last event (0
	// when there is none).
	EvidenceHead(ctx context.Context) (int64, error)
	// SetManifestJSON replaces the JSON kept of a run's manifest (an
	// export added its section); the digest stays.
	SetManifestJSON(ctx context.Context, runID int64, json []byte) error
	// Manifest returns the manifest of a run.
	Manifest(ctx context.Context, runID int64) (StoredManifest, bool, error)
	// Manifests lists the manifests, oldest run first.
	Manifests(ctx context.Context) ([]StoredManifest, error)
	// Exceptions yields every exception, by id.
	Exceptions(ctx context.Context) iter.Seq2[Exception, error]
	// Exception returns one exception by id.
	Exception(ctx context.Context, id string) (Exception, bool, error)
	// Sightings lists the ids of the exceptions a run found.
	Sightings(ctx context.Context, runID int64) ([]string, error)
	// Events yields the events that f selects, in order (seq).
	Events(ctx context.Context, f EventFilter) iter.Seq2[Event, error]
}

// RunInfo is a reconciliation run.
type RunInfo struct {
	ID             int64
	From, To, AsOf string // YYYY-MM-DD
	State          string // running, ok, failed
	SupersededBy   int64
	Finished       time.Time
}

// CallAmount is one call of a period, for the imported totals.
type CallAmount struct {
	PoolAccount string
	Debit       bool
	Amount      string
}

// CallSource is a call-log file as it was imported.
type CallSource struct {
	Name, Path, SHA256 string // name: the path as given
	Bytes              int64
	Lines              int
}

// KeptCalls are a source's calls kept in the database: their line hashes.
type KeptCalls struct {
	Source string
	Hashes []string
}

// DayWalk is how the windows of a day were walked.
type DayWalk struct {
	Day           string
	Windows, Done int
}

// StoredManifest is a run's manifest as the database keeps it.
type StoredManifest struct {
	RunID    int64
	From, To string
	Digest   string
	Verdict  string
	HeadSeq  int64  // the last event after the run's evidence was recorded
	HeadHash string // and its hash
	Created  time.Time
	JSON     []byte
}

// Exception is one exception across runs.
type Exception struct {
	ID, Kind, Key string
	Day           string // YYYY-MM-DD (IST) of the finding
	Status        string
	Assignee      string
	Note          string // the last decision's note
	Amount        string // exact decimal text
	Detail        string
	FirstSeen     time.Time // the first run that found it: its time, id, last day
	FirstRun      int64
	FirstTo       string
	LastSeen      time.Time // the last run that found it
	LastRun       int64
	LastFrom      string
	LastTo        string
	LastDay       string // YYYY-MM-DD: the day of its last row in that run ("": Day)
}

// Sighting is a run that found an exception.
type Sighting struct {
	RunID       int64
	ExceptionID string
}

// Changes are what one evidence step writes, in one transaction.
type Changes struct {
	New       []Exception // inserted
	Update    []Exception // every column but id, kind, key and the first run's
	Sightings []Sighting
	Events    []Event // appended in order; the store links each with Chain
	// Manifest, when set, is saved (replacing the run's), with HeadSeq and
	// HeadHash of the last event after Events.
	Manifest *StoredManifest
	// Base, when Guard is set, is the chain's head (EvidenceHead) read
	// before the state these changes were computed from: another writer
	// that appended events since (a second check of the same period on
	// another host, a decision) makes ApplyEvidence refuse them with
	// ErrMoved, and the caller computes them again.
	Base  int64
	Guard bool
	// Read, when Guard is set, is the last sighting of each exception of
	// Update as it was read (by id): a check that only carried an
	// exception over appends no event but moves its last sighting, so
	// ApplyEvidence also refuses with ErrMoved an update of a row whose
	// last sighting is no longer the one read. An id absent is not checked.
	Read map[string]LastSighting
}

// LastSighting is the run that last found an exception, and when.
type LastSighting struct {
	Run int64
	At  time.Time
}

// lastSighting is e's last sighting.
func lastSighting(e *Exception) LastSighting { return LastSighting{Run: e.LastRun, At: e.LastSeen} }

// ErrMoved is ApplyEvidence's refusal of changes computed from exceptions
// that another writer has changed since.
var ErrMoved = errors.New("the exceptions changed while this run's were computed")

// EventFilter selects events. Zero values select all.
type EventFilter struct {
	ExceptionID string
	RunID       int64
	SignOffs    bool // only sign-offs
}
