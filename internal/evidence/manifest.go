package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Manifest is the evidence of one reconciliation run (manifest.json): what
// it read, with what rules, what it counted at each step and what it
// concluded, and a digest of it all. Its JSON keys come in the order of
// the fields; other tools read it by the keys runId, version, inputs,
// totals, verdict and digest.
type Manifest struct {
	RunID        int64        `json:"runId"`
	Version      string       `json:"version"` // svcrecon, module version, VCS revision (+dirty), as --version prints
	Period       Period       `json:"period"`
	CreatedAt    string       `json:"createdAt"` // RFC 3339 with the IST offset
	Settings     Settings     `json:"settings"`
	SettingsHash string       `json:"settingsHash"` // sha256 hex of the canonical settings
	Inputs       []Input      `json:"inputs"`
	Totals       Totals       `json:"totals"`
	Completeness Completeness `json:"completeness"`
	Verdict      string       `json:"verdict"`
	// Digest is the SHA-256 (hex) of the canonical manifest without
	// digest and export (Canonical).
	Digest string `json:"digest,omitempty"`
	// Export is added by each export of the run, with a digest of its own:
	// exporting again never changes the run's digest (a sign-off's).
	Export *Export `json:"export,omitempty"`
}

// Period is the run's period and as-of day (YYYY-MM-DD, IST).
type Period struct {
	From string `json:"from"`
	To   string `json:"to"`
	AsOf string `json:"asOf"`
}

// Settings are the settings and rules that shaped the result.
type Settings struct {
	// Rules names the version of the reconciliation's rules (the checks,
	// the exceptions' identities, the completeness rule).
	Rules          string `json:"rules"`
	PairWindow     string `json:"pairWindow"`     // suggested pairs: at most this far apart
	PairAmount     string `json:"pairAmount"`     // suggested pairs: amounts at most this far apart, rupees ("0.00": equal)
	PairPercent    string `json:"pairPercent"`    // or this percentage of the call's amount ("0": none)
	TimingWindow   string `json:"timingWindow"`   // a break this near the period's edge may be timing ("0s": none is)
	MaxOrphans     int    `json:"maxOrphans"`     // unmatched rows held for the suggested pairs
	OrdersLookback int    `json:"ordersLookback"` // days of collect orders synced before the period (run; 0 for check)
	RecheckDays    int    `json:"recheckDays"`    // held days walked again by the run's sync (0 for check)
	// RateCard is the rate card the fees were checked against (--rates;
	// ratecard.go), absent when none was given: another card, or the
	// same card edited, is another settings hash.
	RateCard *RateCard `json:"rateCard,omitempty"`
}

// RulesVersion is Settings.Rules: it changes when a rule does.
const RulesVersion = "svcrecon-rules/2026-11 (arithmetic, chain, matching, suggested pairs, reversals, unsettled; exceptions by kind and key; completeness: walk done and a call logged after the day)"

// Input kinds.
const (
	InputCallLog      = "callLog"
	InputStatementDay = "statementDay"
	InputOrdersDay    = "ordersDay"
)

// Input is one input of the run, by SHA-256 (hex). A call-log file (kind
// callLog, name the path as given to the import) by the SHA-256 of the
// bytes the import read and imported (sha256sum of the file as it was when
// the import's reading reached its end); calls kept in the database (name
// "-" for standard input, "svcrecon" for its own calls) by the SHA-256 of
// their lines' SHA-256s; a day of the statement or of the collect orders
// (kind statementDay or ordersDay, name the day) by the digest of its
// stored records (DayDigest).
type Input struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	SHA256  string `json:"sha256"`
	Bytes   int64  `json:"bytes,omitempty"`   // callLog files
	Lines   int    `json:"lines,omitempty"`   // callLog: non-blank lines read
	Records int    `json:"records,omitempty"` // days: records stored
	Path    string `json:"path,omitempty"`    // callLog files: the absolute path imported
}

// Export is what an export of the run wrote: each file with its rows and
// SHA-256. Digest is the SHA-256 of the canonical JSON of the run's digest
// followed by this section without its digest.
type Export struct {
	At     string       `json:"at"` // RFC 3339 with the IST offset
	Files  []ExportFile `json:"files"`
	Digest string       `json:"digest,omitempty"`
}

// ExportFile is one file an export wrote.
type ExportFile struct {
	Name   string           `json:"name"` // the file's name, beside manifest.json
	Rows   int64            `json:"rows,omitempty"`
	Sheets map[string]int64 `json:"sheets,omitempty"` // the workbook: rows per sheet
	Bytes  int64            `json:"bytes"`
	SHA256 string           `json:"sha256"`
}

// canonical is v as JSON without insignificant whitespace, keys in the
// order of the fields (maps by key), no HTML escaping.
func canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// hashOf is the SHA-256 (hex) of the canonical JSON of v.
func hashOf(v any) (string, error) {
	b, err := canonical(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Canonical is the manifest's canonical JSON: without digest and export,
// no whitespace, keys in the file's order. Its SHA-256 is the digest.
func (m *Manifest) Canonical() ([]byte, error) {
	c := *m
	c.Digest, c.Export = "", nil
	return canonical(&c)
}

// ComputeDigest is the SHA-256 (hex) of Canonical.
func (m *Manifest) ComputeDigest() (string, error) {
	b, err := m.Canonical()
	if err != nil {
		return "", fmt.Errorf("manifest of run %d: %w", m.RunID, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// SettingsDigest is the SHA-256 (hex) of the canonical settings.
func SettingsDigest(s Settings) (string, error) { return hashOf(s) }

// exportDigest is the digest of an export section of the run of digest
// runDigest.
func exportDigest(runDigest string, e *Export) (string, error) {
	c := *e
	c.Digest = ""
	return hashOf(struct {
		Run    string  `json:"run"`
		Export *Export `json:"export"`
	}{runDigest, &c})
}

// File is the manifest as manifest.json holds it: indented.
func (m *Manifest) File() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseManifest reads a manifest.json.
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("not a svcrecon manifest: %w", err)
	}
	if m.RunID == 0 || m.Digest == "" {
		return nil, fmt.Errorf("not a svcrecon manifest: no runId or digest")
	}
	return &m, nil
}
