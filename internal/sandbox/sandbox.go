// Package sandbox is an in-process fake of the whole service: an
// http.Handler serving every operation of svcapi's registry over a
// deterministic world generated from a seed (a pool account, N days of
// history with reversals and collect orders, billers, bank lists), the
// client's call log of that history with planted defects, and fault
// injection.
//
// # The generated history and its planted defects
//
// Every billable call of the history debits the pool and appears in the
// statement as a DR record: svcOrderId = the envelope orderid, clientOrderId
// = the externalRef, txnChargedValue = the pool amount, closingBalance the
// running balance. A reversed record carries reversalSvcOrderId; its reversal
// record is a CR record of the same amount and clientOrderId, later the same
// day. Collect orders live in the collect-order statement; some have an empty
// settlementSvcOrderId (unsettled), spread over every aging bucket.
//
// Planted defects (Planted) and what a correct reconciliation of the whole
// history period finds for each — and nothing else besides the linked
// reversals (outcome reversed, reversal found, explainedGap with a negative
// delta):
//
//	unloggedDebit     a DR record with no call line     -> statementOnly + explainedGap(explainedBy the record)
//	amountMismatch    call amount != txnChargedValue     -> amountMismatch (chain intact)
//	duplicateDebit    one externalRef debited twice      -> duplicateDebit (two calls, two DR records)
//	arithmetic        opening − amount != closing        -> arithmetic break with Delta (next opening = logged closing)
//	pending           call logged TUP, no pool; record   -> pending + explainedGap(explainedBy the record)
//	callOnly          call debited, no statement record  -> callOnly (chain intact)
//	gap               pool dropped with no call/record   -> gap break with Delta
//	reversalUnlinked  reversal record after the period   -> reversal not found; the call's outcome reversed
package sandbox

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Options shape the generated world. The zero value gives a small default
// world; the same Options always give the same world.
type Options struct {
	Seed           int64           // default 1
	Days           int             // days of history; default 30
	End            time.Time       // last day of history (IST date); default yesterday in IST of Now
	CallsPerDay    int             // billable calls per day; default 40
	TotalRecords   int             // when > 0: this many statement records over Days (benchmarks: 1,000,000)
	OrdersPerDay   int             // collect orders per day; default 10
	Billers        int             // default 300
	OpeningBalance decimal.Decimal // pool balance before the history; default 1000000
	NoDefects      bool            // plant no defects
	Credentials    Credentials     // default DefaultCredentials
	Faults         Faults
	Now            func() time.Time // clock for live calls; default time.Now
}

// Faults are injected into live answers; each share is 0..1.
type Faults struct {
	Latency     time.Duration // added to every answer
	ServerError float64       // share of answers that are HTTP 5xx
	Drop        float64       // share of connections closed after the request was read
	Pending     float64       // share of billable calls executed but answered TUP
	PageDrift   bool          // some records of a day appear only after its first page was served
	Seed        int64         // fault dice; default Options.Seed
}

// Credentials are what a client must send, and the linked account.
type Credentials struct {
	ClientID, ClientSecret, OutletID, EndpointIP, Account string
}

// DefaultCredentials are the sandbox's credentials unless Options say others.
var DefaultCredentials = Credentials{
	ClientID: "sandbox-client", ClientSecret: "sandbox-secret-do-not-use", OutletID: "OUTLET001",
	EndpointIP: "203.0.113.10", Account: "0409000123456",
}

// Defect kinds.
const (
	DefectUnloggedDebit    = "unloggedDebit"
	DefectAmountMismatch   = "amountMismatch"
	DefectDuplicateDebit   = "duplicateDebit"
	DefectArithmetic       = "arithmetic"
	DefectPending          = "pending"
	DefectCallOnly         = "callOnly"
	DefectGap              = "gap"
	DefectReversalUnlinked = "reversalUnlinked"
)

// Defect is one planted defect.
type Defect struct {
	Kind        string
	ExternalRef string          // the call concerned, when there is one
	SvcOrderID  string          // the statement record concerned, when there is one
	At          string          // IST timestamp YYYY-MM-DD HH:MM:SS of the call or record
	Delta       decimal.Decimal // arithmetic, gap: the delta; amountMismatch: call − statement
}

// Counts are the sizes of the generated world, for tests of the walkers.
type Counts struct {
	Statement int // statement records in the history period (DR and CR)
	Orders    int // collect-order records
	Billers   int
	Calls     int // lines of the call log
}

// Sandbox is the fake service. Create it with New.
type Sandbox struct{}

// ErrNotImplemented is returned until the sandbox is built.
var ErrNotImplemented = errors.New("sandbox: not implemented yet")

// New generates the world for opts.
func New(opts Options) (*Sandbox, error) { return nil, ErrNotImplemented }

// ServeHTTP serves every operation of the registry.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "not implemented", 501)
}

// Credentials returns what clients must send.
func (s *Sandbox) Credentials() Credentials { return DefaultCredentials }

// Period returns the first and last day of the history (IST dates).
func (s *Sandbox) Period() (from, to time.Time) { return }

// Counts returns the sizes of the generated world.
func (s *Sandbox) Counts() Counts { return Counts{} }

// Planted returns the defects planted in the call log and statement.
func (s *Sandbox) Planted() []Defect { return nil }

// WriteCallLog streams the client's call log of the history (JSONL, the
// design's format) to w.
func (s *Sandbox) WriteCallLog(w io.Writer) error { return ErrNotImplemented }

// CallCount says how many requests of billable operations carrying this
// externalRef reached the sandbox (whatever it answered).
func (s *Sandbox) CallCount(externalRef string) int { return 0 }

// SetFaults changes the injected faults.
func (s *Sandbox) SetFaults(f Faults) {}

// Server is a sandbox listening on a loopback port.
type Server struct {
	*Sandbox
	URL string
}

// Start generates the world and serves it on 127.0.0.1 (a free port).
func Start(opts Options) (*Server, error) { return nil, ErrNotImplemented }

// Config returns a client configuration pointing at the server.
func (s *Server) Config() svcapi.Config { return svcapi.Config{} }

// Close stops the server.
func (s *Server) Close() error { return nil }
