package svcapi_test

import (
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func TestFieldCheckRefusesBadTextAndNeverQuotesSecrets(t *testing.T) {
	pan := svcapi.Field{Name: "pan", Type: svcapi.TypeString}
	pid := svcapi.Field{Name: "biometricData.pidData", Type: svcapi.TypeString, Redacted: true}
	ts := svcapi.Field{Name: "biometricData.ts", Type: svcapi.TypeDate, Redacted: true}
	long := strings.Repeat("A", 50<<20)
	for _, c := range []struct {
		name   string
		f      svcapi.Field
		v      string
		want   string // "" = accepted
		secret string // must not appear in the error
	}{
		{"invalid UTF-8", pan, "ABCDE\xff234F", "not valid UTF-8", ""},
		{"a 50 MB PAN", pan, long, "52428800 bytes long, longer than the 1024", ""},
		{"a long PID block is fine", pid, strings.Repeat("Q", 100<<10), "", ""},
		{"a PID block past its limit", pid, strings.Repeat("Q", 300<<10), "longer than the 262144", ""},
		{"a bad secret is not quoted", ts, "SECRET-VALUE-42", "not shown", "SECRET-VALUE-42"},
		{"a long bad value is clipped", svcapi.Field{Name: "n", Type: svcapi.TypeInteger}, strings.Repeat("9x", 400), "is not a whole number", strings.Repeat("9x", 30)},
	} {
		err := c.f.Check(c.v)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: Check = %v, want nil", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: Check = %v, want %q", c.name, err, c.want)
		case c.secret != "" && err != nil && strings.Contains(err.Error(), c.secret):
			t.Errorf("%s: Check = %v quotes the value", c.name, err)
		}
	}
}
