package svcapi

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkValues refuses the values of the settings sent with every request
// that the request could not carry as they are (settings.go).
func (c Config) checkValues() error {
	for _, s := range []struct {
		v, name string
		secret  bool
	}{
		{c.ClientID, "SVC_CLIENT_ID", false}, {c.ClientSecret, "SVC_CLIENT_SECRET", true}, {c.OutletID, "SVC_OUTLET_ID", false},
	} {
		if err := checkHeader(s.name, s.v, s.secret); err != nil {
			return err
		}
	}
	return checkEndpointIP(c.EndpointIP)
}

// checkBaseURL refuses a base URL the client cannot call as it is: not a
// URL, a scheme other than https (http on a loopback address), a port
// that is not 1..65535, credentials, a query or a fragment. The reasons
// never quote the URL (a userinfo there may hold a password).
func checkBaseURL(raw string) error {
	bad := func(format string, args ...any) error {
		return &ConfigError{"SVC_BASE_URL", fmt.Sprintf(format, args...)}
	}
	if i := badChar(raw); i >= 0 {
		return bad("%s at character %d: want a URL such as https://api.example.com", charName(raw, i), i+1)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		reason := "not a URL"
		var ue *url.Error
		if errors.As(err, &ue) {
			reason = ue.Err.Error() // "invalid port \":x\" after host", without the URL
		}
		return bad("%s: want a URL such as https://api.example.com", reason)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return bad("plain http is allowed only for loopback addresses; use https")
		}
	default:
		return bad("scheme %q: want https", u.Scheme)
	}
	switch {
	case u.User != nil:
		return bad("a user or password before the host: the service takes no credentials in the URL (they are SVC_CLIENT_ID and SVC_CLIENT_SECRET)")
	case u.RawQuery != "" || u.ForceQuery:
		return bad("a query (?…): want the base URL only, the operations' paths are added to it")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return bad("a fragment (#…): want the base URL only")
	case u.Hostname() == "":
		return bad("no host: want a URL such as https://api.example.com")
	}
	if p := u.Port(); p != "" || strings.HasSuffix(u.Host, ":") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("port %q: want a number from 1 to 65535", p)
		}
	}
	return nil
}

// checkHeader refuses a setting sent as a header value that a header
// cannot carry as it is: a control character (a line break, an escape),
// a character outside printable ASCII, or a space at either end (which
// servers strip). secret keeps the value out of the reason.
func checkHeader(setting, v string, secret bool) error {
	for i, r := range v {
		if r < 0x20 || r > 0x7e {
			return &ConfigError{setting, fmt.Sprintf("%s at character %d: want printable ASCII (a header carries nothing else)%s",
				charName(v, i), utf8.RuneCountInString(v[:i])+1, shown(v, secret))}
		}
	}
	if strings.TrimSpace(v) != v {
		return &ConfigError{setting, "a space at the start or the end: remove it (a header loses it on the way)"}
	}
	return nil
}

// CheckText refuses a setting that holds a control character (an escape,
// a line break) or a character that does not print: such a value is a
// copying mistake, and it would reach the service and the terminal as it
// is. The error is a *ConfigError naming setting.
func CheckText(setting, v string) error {
	for i, r := range v {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return &ConfigError{setting, fmt.Sprintf("%s at character %d: want printable text%s",
				charName(v, i), utf8.RuneCountInString(v[:i])+1, shown(v, false))}
		}
	}
	return nil
}

// checkEndpointIP refuses an end-customer IP that is not an IPv4 or IPv6
// address.
func checkEndpointIP(v string) error {
	ip, err := netip.ParseAddr(v)
	if err != nil || ip.Zone() != "" {
		return &ConfigError{"SVC_ENDPOINT_IP", fmt.Sprintf("%s is not an IP address: want one such as 203.0.113.7 or 2001:db8::7", strconv.QuoteToASCII(v))}
	}
	return nil
}

// badChar returns the byte index of the first control or non-ASCII
// character of s, or -1.
func badChar(s string) int {
	for i, r := range s {
		if r < 0x20 || r > 0x7e {
			return i
		}
	}
	return -1
}

// charName names the character at byte i of s: "a line break (CR)", "an
// escape (ESC)", "U+00E9".
func charName(s string, i int) string {
	r, _ := utf8.DecodeRuneInString(s[i:])
	switch r {
	case '\r':
		return "a line break (CR)"
	case '\n':
		return "a line break (LF)"
	case '\t':
		return "a tab"
	case 0x1b:
		return "an escape (ESC)"
	case 0x7f:
		return "a delete (DEL)"
	case utf8.RuneError:
		return "a byte that is not UTF-8"
	}
	if r < 0x20 || (r >= 0x80 && r < 0xa0) {
		return fmt.Sprintf("a control character (U+%04X)", r)
	}
	return fmt.Sprintf("U+%04X", r)
}

// shown is ", got "VALUE"" with the value quoted in ASCII (escapes made
// visible, never acted on), or "" for a secret.
func shown(v string, secret bool) string {
	if secret {
		return ""
	}
	return ", got " + strconv.QuoteToASCII(v)
}
