package svcapi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// TestConfigRefusesValuesItCannotSend: a setting whose value a request
// could not carry, or that points nowhere, is a *ConfigError naming the
// variable and what is wrong, in one line, without the secret.
func TestConfigRefusesValuesItCannotSend(t *testing.T) {
	const secret = "S3cr3tV4lue"
	for _, tc := range []struct {
		name    string
		edit    func(c *svcapi.Config)
		setting string
		reason  string
	}{
		{"port too high", func(c *svcapi.Config) { c.BaseURL = "https://api.example.invalid:99999" }, "SVC_BASE_URL", `port "99999": want a number from 1 to 65535`},
		{"port zero", func(c *svcapi.Config) { c.BaseURL = "https://api.example.invalid:0/v1" }, "SVC_BASE_URL", `port "0"`},
		{"port empty", func(c *svcapi.Config) { c.BaseURL = "https://api.example.invalid:/v1" }, "SVC_BASE_URL", `port ""`},
		{"port not a number", func(c *svcapi.Config) { c.BaseURL = "https://api.example.invalid:8o8o" }, "SVC_BASE_URL", `invalid port ":8o8o" after host`},
		{"query", func(c *svcapi.Config) { c.BaseURL = "https://api.example.invalid/v1?key=1" }, "SVC_BASE_URL", "a query"},
		{"empty query", func(c *svcapi.Config) { c.BaseURL = "https://api.example.invalid/v1?" }, "SVC_BASE_URL", "a query"},
		{"fragment", func(c *svcapi.Config) { c.BaseURL = "https://api.example.invalid/v1#top" }, "SVC_BASE_URL", "a fragment"},
		{"userinfo", func(c *svcapi.Config) { c.BaseURL = "https://ops:" + secret + "@api.example.invalid" }, "SVC_BASE_URL", "a user or password"},
		{"line break in URL", func(c *svcapi.Config) { c.BaseURL = "https://api.example.invalid\r\n" }, "SVC_BASE_URL", "a line break (CR) at character 28"},
		{"CR LF in secret", func(c *svcapi.Config) { c.ClientSecret = secret + "\r\nX-Other: 1" }, "SVC_CLIENT_SECRET", "a line break (CR) at character 12"},
		{"bell in secret", func(c *svcapi.Config) { c.ClientSecret = "\a" + secret }, "SVC_CLIENT_SECRET", "a control character (U+0007) at character 1"},
		{"space around secret", func(c *svcapi.Config) { c.ClientSecret = secret + " " }, "SVC_CLIENT_SECRET", "a space at the start or the end"},
		{"escape in client id", func(c *svcapi.Config) { c.ClientID = "client\x1b[2J" }, "SVC_CLIENT_ID", `an escape (ESC) at character 7: want printable ASCII (a header carries nothing else), got "client\x1b[2J"`},
		{"non-ASCII client id", func(c *svcapi.Config) { c.ClientID = "clïent" }, "SVC_CLIENT_ID", "U+00EF at character 3"},
		{"DEL in outlet id", func(c *svcapi.Config) { c.OutletID = "outlet\x7f" }, "SVC_OUTLET_ID", "a delete (DEL) at character 7"},
		{"endpoint IP a name", func(c *svcapi.Config) { c.EndpointIP = "localhost" }, "SVC_ENDPOINT_IP", `"localhost" is not an IP address`},
		{"endpoint IP out of range", func(c *svcapi.Config) { c.EndpointIP = "203.0.113.256" }, "SVC_ENDPOINT_IP", "is not an IP address"},
		{"endpoint IP with zone", func(c *svcapi.Config) { c.EndpointIP = "fe80::1%eth0" }, "SVC_ENDPOINT_IP", "is not an IP address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig("https://api.example.invalid")
			cfg.ClientSecret = secret
			tc.edit(&cfg)
			_, err := svcapi.New(cfg)
			var ce *svcapi.ConfigError
			if !errors.As(err, &ce) || ce.Setting != tc.setting || !strings.Contains(ce.Reason, tc.reason) {
				t.Fatalf("New = %v, want *ConfigError %s: …%s…", err, tc.setting, tc.reason)
			}
			if msg := err.Error(); strings.Contains(msg, secret) || strings.ContainsAny(msg, "\r\n\x1b\a\x7f") {
				t.Errorf("New = %q: want one printable line without the secret", msg)
			}
		})
	}
	for _, ip := range []string{"203.0.113.7", "2001:db8::7", "::ffff:203.0.113.7"} {
		cfg := testConfig("https://api.example.invalid:8443/v1/")
		cfg.EndpointIP = ip
		if _, err := svcapi.New(cfg); err != nil {
			t.Errorf("New(endpoint IP %s, port 8443) = %v, want nil", ip, err)
		}
	}
}

// TestCheckText: a value that does not print is refused, quoted so that
// its escapes show rather than act.
func TestCheckText(t *testing.T) {
	for v, want := range map[string]string{
		"1234567890":     "",
		"Ācct 12":        "",
		"123\x1b]0;x\a":  `SVC_ACCOUNT: an escape (ESC) at character 4: want printable text, got "123\x1b]0;x\a"`,
		"123\n456":       `SVC_ACCOUNT: a line break (LF) at character 4`,
		"12\u200b34":     `SVC_ACCOUNT: U+200B at character 3`,
		"12\xff":         `SVC_ACCOUNT: a byte that is not UTF-8 at character 3`,
		"\u009b31m12345": `SVC_ACCOUNT: a control character (U+009B) at character 1`,
	} {
		err := svcapi.CheckText("SVC_ACCOUNT", v)
		if want == "" && err != nil || want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("CheckText(%q) = %v, want %q", v, err, want)
		}
	}
}
