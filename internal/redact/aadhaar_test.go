package redact

import (
	"encoding/json"
	"testing"
)

func TestAadhaarJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`{"status":"Aadhaar 739146280552 not linked"}`, `{"status":"Aadhaar XXXXXXXX0552 not linked"}`},
		{`{"remarks":"uid:582061493773."}`, `{"remarks":"uid:XXXXXXXX3773."}`},
		{`{"id":362718495025,"n":[362718495025]}`, `{"id":"XXXXXXXX5025","n":["XXXXXXXX5025"]}`},
		{`{"openingBal":362718495025.50,"amount":"362718495025.00"}`, `{"openingBal":362718495025.50,"amount":"362718495025.00"}`},
		{`{"ref":"RC2026111800000001","card":"4111111111111111"}`, `{"ref":"RC2026111800000001","card":"4111111111111111"}`},
		{`{"n":739146280553,"s":"1739146280552"}`, `{"n":739146280553,"s":"1739146280552"}`}, // fails Verhoeff; 13 digits
		{`{"q":"say \"739146280552\""}`, `{"q":"say \"XXXXXXXX0552\""}`},
		{`{"e":1e739146280552}`, `{"e":1e739146280552}`},
	} {
		got := string(AadhaarJSON([]byte(c.in)))
		if got != c.want {
			t.Errorf("AadhaarJSON(%s) = %s, want %s", c.in, got, c.want)
		}
		if json.Valid([]byte(c.in)) && !json.Valid([]byte(got)) {
			t.Errorf("AadhaarJSON(%s) = %s: no longer JSON", c.in, got)
		}
	}
}
