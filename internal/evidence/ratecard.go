package evidence

import (
	"errors"
	"io/fs"
)

// RateCard is the rate card of a run, as its manifest's settings name it:
// the path as given to --rates and the SHA-256 (hex) of the file as read.
type RateCard struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// verifyRateCard hashes the rate card the manifest names, when it is
// found at its path: the card the fees were checked against must not have
// changed since.
func verifyRateCard(m *Manifest, v *Verification) {
	rc := m.Settings.RateCard
	if rc == nil {
		return
	}
	what := "rate card " + rc.Path
	sum, _, err := fileSHA256(rc.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		v.skip(what, "not found at "+rc.Path)
	case err != nil:
		v.add(what, false, err.Error())
	default:
		v.add(what, sum == rc.SHA256, "now has sha256 "+short(sum)+": it changed since the check")
	}
}
