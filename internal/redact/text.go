package redact

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Text is free text as it may be shown on a terminal, logged or kept as an
// error message: passwords in URLs and DSNs masked (URLPasswords), card and
// Aadhaar numbers masked to their last four digits (Numbers), control
// characters escaped (Escape). It knows no secret value: a Scrubber's Text
// also removes those.
func Text(s string) string { return Escape(Numbers(URLPasswords(s))) }

// Escape returns s with its control characters (C0 but TAB, DEL, C1) and
// bytes that are not UTF-8 written as Go escapes (\n, \r, \x1b, \u009b …),
// so that text from the service can neither start a line of its own in a
// log nor send an escape sequence to a terminal.
func Escape(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c >= 0x7f {
			break
		}
	}
	if i == len(s) {
		return s // the common case: printable ASCII, no allocation
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 && r != '\t' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// PasswordMask replaces a password URLPasswords masks.
const PasswordMask = "xxxxx"

var (
	urlPassword = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]*:)([^\s@]*)@`)
	kvPassword  = regexp.MustCompile(`(?i)\b(password|passwd|pwd)(\s*=\s*)('[^']*'|"[^"]*"|[^\s&;,]*)`)
)

// URLPasswords masks the passwords of the URLs in s (scheme://user:PASSWORD@host)
// and of key=value settings (password=…, as in a PostgreSQL DSN or a URL's
// query) with PasswordMask.
func URLPasswords(s string) string {
	if strings.Contains(s, "://") && strings.IndexByte(s, '@') >= 0 {
		s = urlPassword.ReplaceAllString(s, "${1}"+PasswordMask+"@")
	}
	if strings.IndexByte(s, '=') >= 0 {
		s = kvPassword.ReplaceAllString(s, "${1}${2}"+PasswordMask)
	}
	return s
}

// DSNPassword returns the password a database setting carries: the
// password of a URL (postgres://user:PASSWORD@host/db) or of a key=value
// DSN (password=PASSWORD); "" when none.
func DSNPassword(dsn string) string {
	if strings.Contains(dsn, "://") {
		if u, err := url.Parse(dsn); err == nil {
			if p, ok := u.User.Password(); ok {
				return p
			}
			if p := u.Query().Get("password"); p != "" {
				return p
			}
		}
		return ""
	}
	if m := kvPassword.FindStringSubmatch(dsn); m != nil {
		return strings.Trim(m[3], `'"`)
	}
	return ""
}
