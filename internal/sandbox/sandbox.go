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
// day, strictly between two calls (so the chain shows an explainedGap with a
// negative delta). Some calls share a second with the call before them (and
// are sometimes logged before it); some failed calls (ERR, SPE, SPD, ISE,
// DTX: no pool, no record) are logged too. The history holds only
// pool-debiting operations.
//
// Collect orders live in the collect-order statement; they start 15 days
// before the period (OrdersPeriod) so that, with the default 30 days, the
// >30 aging bucket is populated by orders synced from OrdersPeriod. Some have
// an empty settlementSvcOrderId (unsettled): at least one in every aging bucket
// 0-1, 2-3, 4-7, 8-30, >30 relative to the period's last day.
//
// Planted defects (Planted) and what a correct reconciliation of the whole
// history period finds for each — and nothing else besides the linked
// reversals (outcome reversed, reversal found, explainedGap with a negative
// delta). Each sits on its own day (when Days ≥ 9), away from reversals and
// same-second pairs:
//
//	unloggedDebit     a DR record with no call line     -> statementOnly + explainedGap(explainedBy the record)
//	amountMismatch    call amount != txnChargedValue     -> amountMismatch (chain intact), Delta = call − statement = 1.18
//	duplicateDebit    one externalRef debited twice      -> duplicateDebit (two calls, two DR records); SvcOrderID is the second
//	arithmetic        opening − amount != closing        -> arithmetic break with Delta 10.00 (next opening = logged closing)
//	pending           call logged TUP, no pool; record   -> pending + explainedGap(explainedBy the record)
//	callOnly          call debited, no statement record  -> callOnly (chain intact); SvcOrderID is the call's orderid
//	gap               pool dropped with no call/record   -> gap break with Delta 25.50 at the call after the drop
//	orphanPair        call line without orderid and       -> callOnly + statementOnly, suggested as a pair (same second,
//	                  externalRef; its DR record exists      same amount and product); ExternalRef, SvcOrderID: the record's
//	reversalUnlinked  reversal record after the period   -> reversal not found; the call's outcome reversed
//
// The unlinked reversal record is dated the day after the period (00:05:00)
// and is served by the statement for that day.
//
// One more is planted that only a rate card shows (Mispriced, not among
// Planted): every debit of Mobile to PAN (IDV/MOBPAN, price 3.54) on the
// days of the middle fifth of the history is charged 4.54, call and
// record alike; checked against testdata/rates-sandbox.yaml (the price
// list below as a rate card) each is overcharged by 1.00, and the
// amountMismatch's record, 1.18 below its price, undercharged.
//
// # Live calls
//
// Live billable calls debit the pool balance left by the history; each
// debit becomes a DR record dated now (Options.Now) with svcOrderId
// SO<yymmdd>9xxxxxxx. Charges (rupees): verifyPanPlusV2 1.50, mobileNameLookup
// 2.36, mobilePanLookup 3.54, panDin 2.95, nameAbbreviations 0.59, litigation
// 25.00, creditReport 35.40, companyLookup 11.80, corporateEmpCheck 5.90,
// balanceInquiry 1.18, fundTransfer transferAmount + 5.90 (IMPS), 2.95 (NEFT)
// or 23.60 (RTGS), its record naming the mode as its subProductCode,
// brandOrder the denomination. addPaymentMethod,
// initiateUserRegistration and okycQr debit nothing.
//
// Failures answer an envelope with orderid null and environment SANDBOX:
// IAC (auth code not 1) and UAD (client id or secret wrong) with HTTP 401;
// IAN (no endpoint IP), OUI (outlet id missing or wrong on H5 operations),
// RPI (a field missing or invalid, named in status), IAB (pool too low), DTX
// (externalRef already used by a successful call, live or in the history:
// nothing is debited again) and ERR (unknown account number) with HTTP 200.
// txnStatus answers TXN with data.transactionStatusCode TXN (orderid, pool),
// a failure code, or SNA (svcapi.TxnNotFound) for a ref never executed on
// that transactionDate.
//
// Report pages honour recordsPerPage up to 1000 (capped above; meta adds
// recordsPerPage and, when capped, notice); every third page (2, 5, 8 …)
// writes its meta numbers as strings. Records are ordered by txnDateTime,
// then svcOrderId. Other number-or-string mixing, all deterministic: some
// records carry orderValue and convenienceFee as JSON numbers, fund
// transfers sometimes txnValue, coveragePincode is a number (text for one
// biller in ten), bankId a number (text for some banks), failure rates are
// strings holding integers.
//
// # Faults
//
// Faults (Options.Faults, SetFaults) are drawn per request from dice seeded
// by Faults.Seed, so one sequence of requests meets the same faults every
// time: Latency before every answer; ServerError answers HTTP 500 (empty
// body), 502 (an HTML page) or 503 (plain text) without executing; Drop
// closes the connection after reading the request, a billable call being
// executed first or not (txnStatus then says TXN or SNA); Pending executes a
// billable call and answers TUP (txnStatus says TXN); PageDrift hides about
// 1% of each day's records (at least one, in the middle of the day) until a
// page 1 of a range covering that day has been served — then they appear,
// shifting the later pages and raising meta.totalRecords. Counts include them.
//
// # Scale
//
// With TotalRecords the statement holds exactly that many records over
// Days. Records are generated per day from (seed, day) and never all kept:
// New makes one pass to learn each day's opening balance and keep an index
// of it (a mark of the generation's state every 512 slots), a page generates
// only the records it serves from the mark before them, so that it costs
// the same in a day of ten thousand records as in a day of a million, and
// WriteCallLog streams. A day of more records than seconds (10,000,000 over
// 30 days) is spread over the day like any other, several calls a second,
// but each record without a pool call (a credit) alone in its second, so
// that a check can order the pool's chain within a second.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
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
	CallsFrom      time.Duration   // time of day (IST) of a day's first billable call, before 23:30; default (zero) 06:00; a later one packs a day into fewer seconds
	Billers        int             // default 300
	OpeningBalance decimal.Decimal // pool balance before the history; default 1000000, raised for big histories so the pool never runs dry
	NoDefects      bool            // plant no defects
	Credentials    Credentials     // default DefaultCredentials
	Faults         Faults
	Now            func() time.Time // clock for live calls (keep it after End); default time.Now; called under a lock
}

// Faults are injected into live answers; each share is 0..1.
type Faults struct {
	Latency     time.Duration // added to every answer
	ServerError float64       // share of answers that are HTTP 5xx
	Drop        float64       // share of connections closed after the request was read (a dropped billable call is executed or not, by the dice)
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
	DefectOrphanPair       = "orphanPair"
)

// Defect is one planted defect.
type Defect struct {
	Kind        string
	ExternalRef string          // the call concerned (unloggedDebit, orphanPair: the record's clientOrderId)
	SvcOrderID  string          // the statement record concerned (callOnly: the call's orderid, no record)
	At          string          // IST timestamp YYYY-MM-DD HH:MM:SS of the call or record
	Delta       decimal.Decimal // arithmetic, gap: the delta; amountMismatch: call − statement
}

// Counts are the sizes of the generated world, for tests of the walkers.
type Counts struct {
	Statement int // statement records in the history period (DR and CR)
	Orders    int // collect-order records dated in the period
	Billers   int
	Calls     int // lines of the call log
	// OrdersAll counts the collect orders of OrdersPeriod: the period plus
	// the 15 days before it, where the >30 aging bucket lives.
	OrdersAll int
	// Credits counts the CR reversal records in the period (each a linked
	// reversal and an explainedGap with a negative delta).
	Credits int
	// CallsFailed counts call-log lines with a failure statuscode (no pool,
	// no record); CallsPending the TUP lines (the planted pending call).
	CallsFailed, CallsPending int
	// CallsWithDebit counts call-log lines with a pool debit.
	CallsWithDebit int
	// Unsettled counts the unsettled collect orders of OrdersPeriod by aging
	// bucket (0-1, 2-3, 4-7, 8-30, >30) relative to the period's last day.
	Unsettled map[string]int
}

// Sandbox is the fake service. Create it with New. It is safe for
// concurrent use.
type Sandbox struct {
	w     *world
	opts  Options
	creds Credentials
	now   func() time.Time

	mu       sync.Mutex
	bal      int64               // live pool balance, paise
	live     map[int][]liveRec   // live statement records by day number
	txns     map[string]*liveTxn // live transactions by externalRef
	calls    map[string]int      // billable requests by externalRef
	seq      int                 // live svcOrderId sequence
	uuids    uint64              // svc_uuid sequence
	faults   Faults
	dice     *rand.Rand
	revealed map[revealKey]bool // page drift: days whose first page was served
}

// ErrNoRoom is matched (errors.Is) by the error of New for options that
// leave no room for the planted defects (too few days or calls a day).
var ErrNoRoom = errors.New("no room for the planted defects")

// New generates the world for opts. It fails only for options that leave
// no room for the planted defects (ErrNoRoom) or a negative TotalRecords.
func New(opts Options) (*Sandbox, error) {
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.Days <= 0 {
		opts.Days = 30
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.End.IsZero() {
		opts.End = opts.Now().In(recon.IST).AddDate(0, 0, -1)
	}
	y, m, d := opts.End.In(recon.IST).Date()
	opts.End = time.Date(y, m, d, 0, 0, 0, 0, recon.IST)
	if opts.CallsPerDay <= 0 {
		opts.CallsPerDay = 40
	}
	if opts.OrdersPerDay <= 0 {
		opts.OrdersPerDay = 10
	}
	if opts.Billers <= 0 {
		opts.Billers = 300
	}
	if opts.TotalRecords < 0 {
		return nil, fmt.Errorf("sandbox: TotalRecords %d is negative", opts.TotalRecords)
	}
	if opts.CallsFrom < 0 || opts.CallsFrom >= 23*time.Hour+30*time.Minute {
		return nil, fmt.Errorf("sandbox: CallsFrom %v is not a time of day before 23:30", opts.CallsFrom)
	}
	c, def := &opts.Credentials, DefaultCredentials
	for _, f := range []struct {
		dst *string
		def string
	}{
		{&c.ClientID, def.ClientID}, {&c.ClientSecret, def.ClientSecret}, {&c.OutletID, def.OutletID},
		{&c.EndpointIP, def.EndpointIP}, {&c.Account, def.Account},
	} {
		if *f.dst == "" {
			*f.dst = f.def
		}
	}
	w, err := newWorld(opts)
	if err != nil {
		return nil, err
	}
	// Requests are served concurrently; the clock is read under its own
	// lock, so a test's stepping clock need not be safe for concurrent use.
	var clockMu sync.Mutex
	now := func() time.Time {
		clockMu.Lock()
		defer clockMu.Unlock()
		return opts.Now()
	}
	s := &Sandbox{w: w, opts: opts, creds: opts.Credentials, now: now,
		bal: w.dayOpen[opts.Days+1], live: map[int][]liveRec{}, txns: map[string]*liveTxn{},
		calls: map[string]int{}, revealed: map[revealKey]bool{}}
	s.SetFaults(opts.Faults)
	return s, nil
}

// Credentials returns what clients must send.
func (s *Sandbox) Credentials() Credentials { return s.creds }

// Period returns the first and last day of the history (IST dates).
func (s *Sandbox) Period() (from, to time.Time) {
	return dayTime(s.w.startDN), dayTime(s.w.endDN())
}

// OrdersPeriod returns the days that hold collect orders: the period and
// the 15 days before it (so unsettled orders older than 30 days exist).
func (s *Sandbox) OrdersPeriod() (from, to time.Time) {
	return dayTime(s.w.ordStart), dayTime(s.w.endDN())
}

// OpeningBalance is the pool balance before the first day of the history.
func (s *Sandbox) OpeningBalance() decimal.Decimal { return decimal.New(s.w.opening, -2) }

// Balance is the pool balance now (after the history and the live calls).
func (s *Sandbox) Balance() decimal.Decimal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return decimal.New(s.bal, -2)
}

// Counts returns the sizes of the generated world.
func (s *Sandbox) Counts() Counts {
	c := s.w.counts
	c.Unsettled = make(map[string]int, len(s.w.counts.Unsettled))
	for k, v := range s.w.counts.Unsettled {
		c.Unsettled[k] = v
	}
	return c
}

// Planted returns the defects planted in the call log and statement, in
// time order. It is empty with NoDefects.
func (s *Sandbox) Planted() []Defect {
	out := make([]Defect, len(s.w.planted))
	copy(out, s.w.planted)
	return out
}

// CallCount says how many requests of billable operations carrying this
// externalRef reached the sandbox (whatever it answered).
func (s *Sandbox) CallCount(externalRef string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[externalRef]
}

// SetFaults changes the injected faults and restarts their dice from
// f.Seed (default Options.Seed), so a sequence of requests meets the same
// faults every time.
func (s *Sandbox) SetFaults(f Faults) {
	if f.Seed == 0 {
		f.Seed = s.opts.Seed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
	s.dice = rand.New(rand.NewPCG(uint64(f.Seed), 0xfa17))
}

// Server is a sandbox listening on a loopback port.
type Server struct {
	*Sandbox
	URL string
	srv *http.Server
	ln  net.Listener
}

// Start generates the world and serves it on 127.0.0.1 (a free port).
func Start(opts Options) (*Server, error) { return Listen("127.0.0.1:0", opts) }

// Listen is Start on a given loopback address.
func Listen(addr string, opts Options) (*Server, error) {
	sb, err := New(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sandbox: listen: %w", err)
	}
	srv := &http.Server{Handler: sb, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Close
	return &Server{Sandbox: sb, URL: "http://" + ln.Addr().String(), srv: srv, ln: ln}, nil
}

// Config returns a client configuration pointing at the server.
func (s *Server) Config() svcapi.Config {
	c := s.creds
	return svcapi.Config{BaseURL: s.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
		OutletID: c.OutletID, EndpointIP: c.EndpointIP}
}

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		return s.srv.Close()
	}
	return nil
}
