package clitest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// Service is a service that counts the requests reaching it (and answers
// each with HTTP 503), with good settings pointing at it.
type Service struct {
	URL string
	Env []string // every SVC_* setting, good, with SVC_DB empty
	n   atomic.Int64
}

// Requests is how many requests reached the service.
func (s *Service) Requests() int64 { return s.n.Load() }

// NewService starts a Service, closed when the test ends.
func NewService(tb testing.TB) *Service {
	tb.Helper()
	s := &Service{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.n.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	tb.Cleanup(srv.Close)
	s.URL = srv.URL
	s.Env = []string{"SVC_BASE_URL=" + srv.URL, "SVC_CLIENT_ID=client", "SVC_CLIENT_SECRET=" + Secret,
		"SVC_OUTLET_ID=OUT1", "SVC_ENDPOINT_IP=203.0.113.1", "SVC_ACCOUNT=0409000123456", "SVC_DB="}
	return s
}

// BadSetting is a setting that cannot work, as a command that calls the
// service gets it: from its variable or on its command line.
type BadSetting struct {
	Name string
	Env  []string // VAR=value set over the good settings
	Args []string // flags added to the command line
	// Want is what the one-line error starts with: the setting and what
	// is wrong with it.
	Want string
	// Needs is the flag of the setting when only commands taking it see
	// it ("account", "outlet-id"); "" for every command that calls the
	// service.
	Needs string
}

// Secret is the client secret BadSettings' settings carry, which no
// refusal may print.
const Secret = "S3cr3tV4lue"

// BadSettings are the settings refused before the first call, for a
// command whose good settings point at base (http://127.0.0.1:PORT).
func BadSettings(tb testing.TB, base string) []BadSetting {
	tb.Helper()
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	withPort := func(p string) string { return "SVC_BASE_URL=http://" + u.Hostname() + ":" + p }
	return []BadSetting{
		{Name: "port too high", Env: []string{withPort("99999")}, Want: `SVC_BASE_URL: port "99999": want a number from 1 to 65535`},
		{Name: "port zero", Env: []string{withPort("0")}, Want: `SVC_BASE_URL: port "0"`},
		{Name: "port not a number", Env: []string{withPort("8o8o")}, Want: `SVC_BASE_URL: invalid port ":8o8o" after host`},
		{Name: "query", Env: []string{"SVC_BASE_URL=" + base + "/?token=1"}, Want: "SVC_BASE_URL: a query (?…)"},
		{Name: "fragment", Env: []string{"SVC_BASE_URL=" + base + "/#v1"}, Want: "SVC_BASE_URL: a fragment (#…)"},
		{Name: "userinfo", Env: []string{"SVC_BASE_URL=http://ops:" + Secret + "@" + u.Host}, Want: "SVC_BASE_URL: a user or password before the host"},
		{Name: "flag with query", Args: []string{"--base-url", base + "?x"}, Want: "SVC_BASE_URL: a query (?…)"},
		{Name: "CR LF in secret", Env: []string{"SVC_CLIENT_SECRET=" + Secret + "\r\nX-Injected: 1"}, Want: "SVC_CLIENT_SECRET: a line break (CR) at character 12"},
		{Name: "tab in secret", Env: []string{"SVC_CLIENT_SECRET=" + Secret + "\t"}, Want: "SVC_CLIENT_SECRET: a tab at character 12"},
		{Name: "escape in client id", Env: []string{"SVC_CLIENT_ID=client\x1b[31m"}, Want: `SVC_CLIENT_ID: an escape (ESC) at character 7`},
		{Name: "escape in client id flag", Args: []string{"--client-id", "\x1b]0;pwned\a"}, Want: `SVC_CLIENT_ID: an escape (ESC) at character 1`},
		{Name: "non-ASCII client id", Env: []string{"SVC_CLIENT_ID=clïent"}, Want: "SVC_CLIENT_ID: U+00EF at character 3"},
		{Name: "endpoint IP not an IP", Env: []string{"SVC_ENDPOINT_IP=10.0.0.300"}, Want: `SVC_ENDPOINT_IP: "10.0.0.300" is not an IP address`},
		{Name: "endpoint IP a host name", Args: []string{"--endpoint-ip", "gateway.local"}, Want: `SVC_ENDPOINT_IP: "gateway.local" is not an IP address`},
		{Name: "rate NaN", Args: []string{"--rate", "NaN"}, Want: "--rate NaN: want 0 (no limit) or a positive number"},
		{Name: "rate Inf", Args: []string{"--rate", "Inf"}, Want: "--rate +Inf: want 0 (no limit) or a positive number"},
		{Name: "rate negative", Args: []string{"--rate", "-5"}, Want: "--rate -5: want 0 (no limit) or a positive number"},
		{Name: "timeout zero", Args: []string{"--timeout", "0s"}, Want: "--timeout 0s: want a positive duration"},
		{Name: "timeout negative", Args: []string{"--timeout", "-1m"}, Want: "--timeout -1m0s: want a positive duration"},
		{Name: "timeout NaN", Args: []string{"--timeout", "NaN"}, Want: `invalid value "NaN" for flag -timeout`},
		{Name: "escape in outlet id", Env: []string{"SVC_OUTLET_ID=OUT\x1b[1m"}, Want: "SVC_OUTLET_ID: an escape (ESC) at character 4", Needs: "outlet-id"},
		{Name: "escape in account", Env: []string{"SVC_ACCOUNT=1234\x1b[2J"}, Want: "SVC_ACCOUNT: an escape (ESC) at character 5", Needs: "account"},
		{Name: "line break in account flag", Args: []string{"--account", "1234\n5678"}, Want: "SVC_ACCOUNT: a line break (LF) at character 5", Needs: "account"},
	}
}

// CheckRefusal reports what is wrong with a command's refusal of bad:
// its exit code must be 2 and its stderr one printable line holding
// bad.Want and not the secret. "" when it is right.
func CheckRefusal(bad BadSetting, code int, stderr string) string {
	var wrong []string
	if code != 2 {
		wrong = append(wrong, "exit code not 2")
	}
	if !strings.Contains(stderr, bad.Want) {
		wrong = append(wrong, "no "+bad.Want)
	}
	if strings.Count(stderr, "\n") != 1 || strings.ContainsAny(stderr, "\r\x1b\a") {
		wrong = append(wrong, "not one printable line")
	}
	if strings.Contains(stderr, Secret) {
		wrong = append(wrong, "the secret printed")
	}
	return strings.Join(wrong, "; ")
}
