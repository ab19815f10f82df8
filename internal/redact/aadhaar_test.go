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
		{`{"remark":"uid 7391 4628 0552 seeded"}`, `{"remark":"uid XXXX XXXX 0552 seeded"}`},
		{`{"remark":"uid 7391-4628-0552"}`, `{"remark":"uid XXXX-XXXX-0552"}`},
		{`{"remark":"AEPS 7391 4628 0552 1500.00"}`, `{"remark":"AEPS XXXX XXXX 0552 1500.00"}`},
		{`{"at":"2026-11-28 10:00:01","n":"7391 4628 0553"}`, `{"at":"2026-11-28 10:00:01","n":"7391 4628 0553"}`},
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

// TestAadhaarJSONExcept: the value right after a kept key (any case, '_'
// and '-' ignored, string or number) stays; every other value is masked
// as AadhaarJSON masks it, a kept key's elsewhere too.
func TestAadhaarJSONExcept(t *testing.T) {
	keys := []string{"orderid", "account"}
	for _, c := range []struct{ in, want string }{
		{`{"orderid":"739146280552","remark":"Aadhaar 739146280552"}`, `{"orderid":"739146280552","remark":"Aadhaar XXXXXXXX0552"}`},
		{`{"Order_Id" : 739146280552, "n":739146280552}`, `{"Order_Id" : 739146280552, "n":"XXXXXXXX0552"}`},
		{`{"pool":{"account":"582061493773","mode":"DR"},"x":"582061493773"}`, `{"pool":{"account":"582061493773","mode":"DR"},"x":"XXXXXXXX3773"}`},
		{`{"orderid":["739146280552"]}`, `{"orderid":["XXXXXXXX0552"]}`},               // an element, not the key's value
		{`{"739146280552":"orderid","a":"x"}`, `{"XXXXXXXX0552":"orderid","a":"x"}`},   // a key is text
		{`{"orderid":{"note":"739146280552"}}`, `{"orderid":{"note":"XXXXXXXX0552"}}`}, // a key's object is not its value
		{`{"q":"orderid","s":"739146280552"}`, `{"q":"orderid","s":"XXXXXXXX0552"}`},   // a value that spells a key
		{`{"orderid":"say \"x\" 739146280552","b":"739146280552"}`, `{"orderid":"say \"x\" 739146280552","b":"XXXXXXXX0552"}`},
	} {
		got := string(AadhaarJSONExcept([]byte(c.in), keys...))
		if got != c.want {
			t.Errorf("AadhaarJSONExcept(%s) = %s, want %s", c.in, got, c.want)
		}
		if json.Valid([]byte(c.in)) && !json.Valid([]byte(got)) {
			t.Errorf("AadhaarJSONExcept(%s) = %s: no longer JSON", c.in, got)
		}
	}
}
