package redact

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"
)

const marker = "Zq9-Marker7Xv2Secret"

// percentAll URL-encodes every byte of s, with upper- or lower-case hex.
func percentAll(s string, lower bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		f := "%%%02X"
		if lower {
			f = "%%%02x"
		}
		fmt.Fprintf(&b, f, s[i])
	}
	return b.String()
}

// jsonUnicode spells every byte of s as a \u00XX JSON escape.
func jsonUnicode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\u%04x`, s[i])
	}
	return b.String()
}

// spellings are the forms of a secret a hostile service may quote back.
func spellings(s string) map[string]string {
	half := len(s) / 2
	out := map[string]string{
		"plain": s, "upper": strings.ToUpper(s), "lower": strings.ToLower(s),
		"json unicode": jsonUnicode(s), "query escaped": url.QueryEscape(s),
		"percent upper": percentAll(s, false), "percent lower": percentAll(s, true),
		"split LF": s[:half] + "\n" + s[half:], "split CRLF": s[:half] + "\r\n" + s[half:],
		"split JSON escape": s[:half] + `\n` + s[half:], "split encoded": s[:half] + "%0D%0A" + s[half:],
		"upper split":    strings.ToUpper(s[:3]) + "\n" + strings.ToUpper(s[3:]),
		"base64 std":     base64.StdEncoding.EncodeToString([]byte(s)),
		"base64 std raw": base64.RawStdEncoding.EncodeToString([]byte(s)),
		"base64 url":     base64.URLEncoding.EncodeToString([]byte(s)),
		"base64 url raw": base64.RawURLEncoding.EncodeToString([]byte(s)),
		"base64 percent": url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(s + "?>"))),
		"json twice":     strings.ReplaceAll(jsonUnicode(s), `\`, `\\`),
		"percent twice":  strings.ReplaceAll(percentAll(s, false), "%", "%25"),
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(s))
	out["base64 wrapped"] = b64[:10] + "\r\n" + b64[10:]
	for k := range 3 {
		// Inside a longer base64 text, at each alignment.
		out[fmt.Sprintf("base64 inside %d", k)] = base64.StdEncoding.EncodeToString([]byte(strings.Repeat("u", k) + "user:" + s + ":tail"))
	}
	return out
}

// leaks reports whether text still holds the secret in a spelling: as it
// is (any case, escapes and line breaks undone) or in any base64 text.
func leaks(text, secret string) bool {
	flat := strings.NewReplacer("\r", "", "\n", "", `\r`, "", `\n`, "", "%0D", "", "%0A", "", "%0d", "", "%0a", "").Replace(text)
	for _, t := range []string{text, flat} {
		for range 3 { // escaped up to three times over
			if un, err := url.PathUnescape(t); err == nil && un != t {
				t += " " + un
			}
			var js string
			if json.Unmarshal([]byte(`"`+t+`"`), &js) == nil && js != t {
				t += " " + js
			}
		}
		if strings.Contains(strings.ToLower(t), strings.ToLower(secret)) {
			return true
		}
		for _, w := range strings.FieldsFunc(t, func(r rune) bool { return !isB64(byte(r)) }) {
			for cut := range 4 { // any alignment of the secret inside
				for trim := range 4 {
					if cut+trim >= len(w) {
						break
					}
					part := w[cut : len(w)-trim]
					for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
						if d, err := enc.DecodeString(part); err == nil && strings.Contains(string(d), secret[2:len(secret)-2]) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

func TestScrubberEverySpelling(t *testing.T) {
	s := NewScrubber(marker)
	for name, form := range spellings(marker) {
		if !leaks(form, marker) {
			t.Fatalf("%s: the test's leak check misses %q", name, form)
		}
		in := "before " + form + " after"
		out := s.String(in)
		if leaks(out, marker) || !strings.Contains(out, Marker) {
			t.Errorf("%s: String(%q) = %q, still holds the secret", name, in, out)
		}
		if !strings.HasPrefix(out, "before ") || !strings.HasSuffix(out, " after") {
			t.Errorf("%s: String(%q) = %q, took the text around it", name, in, out)
		}
		if got := string(s.Bytes([]byte(in))); got != out {
			t.Errorf("%s: Bytes = %q, String = %q", name, got, out)
		}
		// In a JSON document, escaped as JSON escapes it, the result is
		// still the same JSON with the value gone.
		doc, _ := json.Marshal(map[string]string{"status": in, "actcode": form})
		got := s.Bytes(doc)
		if !json.Valid(got) || leaks(string(got), marker) {
			t.Errorf("%s: Bytes(%s) = %s", name, doc, got)
		}
	}
}

func TestScrubberLeavesOtherText(t *testing.T) {
	s := NewScrubber(marker, "pw12")
	for _, in := range []string{"", "plain text", "100% of 5%", `a\b\u00zz`, "line\nbreak", "Zq9-Marker7Xv2Secre", "eHh4eA=="} {
		if got := s.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
	if got := NewScrubber("abc").String("abc"); got != "abc" {
		t.Errorf("a value shorter than MinSecret was removed: %q", got)
	}
	var nilS *Scrubber
	if nilS.String(marker) != marker || string(nilS.Bytes([]byte(marker))) != marker {
		t.Error("a nil Scrubber changed its text")
	}
	text := "a long line of plain text with nothing to find in it, repeated: " + strings.Repeat("abc def ", 20)
	if n := testing.AllocsPerRun(50, func() { s.String(text) }); n != 0 {
		t.Errorf("String of a text with nothing to remove allocates %v times, want 0", n)
	}
}

func TestScrubberLearnAndWith(t *testing.T) {
	s := NewScrubber()
	s.Learn(marker, marker, "", "x")
	if got := s.Values(); len(got) != 1 || got[0] != marker {
		t.Errorf("Values = %q, want the marker once", got)
	}
	call := s.With("PIDDATA-0042-XYZ")
	if got := call.String("PIDDATA-0042-XYZ and " + marker); got != Marker+" and "+Marker {
		t.Errorf("With: %q", got)
	}
	if got := s.String("PIDDATA-0042-XYZ"); got != "PIDDATA-0042-XYZ" {
		t.Errorf("With changed its parent: %q", got)
	}
}

func TestScrub(t *testing.T) {
	if got := Scrub("the secret S3KR3T-VALUE, or s3kr3t-value", "S3KR3T-VALUE"); got != "the secret [REDACTED], or [REDACTED]" {
		t.Errorf("Scrub = %q", got)
	}
	if got := Scrub("nothing", ""); got != "nothing" {
		t.Errorf("Scrub with an empty secret = %q", got)
	}
}

func TestText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{"bad\n level=ERROR msg=forged", `bad\n level=ERROR msg=forged`},
		{"\x1b[31mred\x1b[0m\r", `\x1b[31mred\x1b[0m\r`},
		{"tab\tkept, é kept, C1 \u009b and DEL \x7f escaped, bad byte \xff", `tab` + "\t" + `kept, é kept, C1 \u009b and DEL \x7f escaped, bad byte \xff`},
		{"uid 234567890124 ok", "uid XXXXXXXX0124 ok"},
		{"open postgres://svc:hunter2@db:5432/x?sslmode=disable", "open postgres://svc:xxxxx@db:5432/x?sslmode=disable"},
		{"host=db user=svc password='hunter 2' dbname=x", "host=db user=svc password=xxxxx dbname=x"},
		{"postgres://db/x?password=hunter2&sslmode=require", "postgres://db/x?password=xxxxx&sslmode=require"},
		{"https://example.com/a:b/c", "https://example.com/a:b/c"},
	} {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := NewScrubber(marker).Text("echo " + strings.ToUpper(marker) + "\n"); got != `echo [REDACTED]\n` {
		t.Errorf("Scrubber.Text = %q", got)
	}
}

func TestDSNPassword(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://svc:hunter2@db:5432/x":        "hunter2",
		"postgresql://svc:p%40ss@db/x":            "p@ss",
		"postgres://svc@db/x?password=q1w2e3r4":   "q1w2e3r4",
		"postgres://svc@db/x":                     "",
		"host=db user=svc password=s3cr3t dbname": "s3cr3t",
		"host=db password='a b c'":                "a b c",
		"svcrecon.db":                             "",
	} {
		if got := DSNPassword(dsn); got != want {
			t.Errorf("DSNPassword(%q) = %q, want %q", dsn, got, want)
		}
	}
}

// TestHandler: through the handler, neither the text nor the JSON handler
// writes a secret, a forged line or a raw escape, whatever attribute holds
// them.
func TestHandler(t *testing.T) {
	s := NewScrubber(marker)
	hostile := "status " + base64.StdEncoding.EncodeToString([]byte(marker)) + "\n" + `time=x level=ERROR msg="forged"` + "\x1b[2J uid 234567890124"
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		var h slog.Handler = slog.NewTextHandler(&buf, nil)
		if format == "json" {
			h = slog.NewJSONHandler(&buf, nil)
		}
		log := slog.New(s.Handler(h)).With("with", marker).WithGroup("g")
		log.Info("message "+strings.ToLower(marker)+"\n level=ERROR", "s", hostile, "err", errors.New(hostile),
			slog.Group("grp", "inner", url.QueryEscape(marker)), "list", []string{marker}, "n", 7)
		log.InfoContext(context.Background(), "ok", "n", 1)
		out := buf.String()
		if leaks(out, marker) || strings.Contains(out, "234567890124") || strings.ContainsRune(out, 0x1b) {
			t.Errorf("%s: the log holds a secret, a number or a raw escape:\n%s", format, out)
		}
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 {
			t.Errorf("%s: %d lines written, want 2:\n%s", format, len(lines), out)
		}
		if !strings.Contains(out, "n=7") && !strings.Contains(out, `"n":7`) {
			t.Errorf("%s: a number attribute changed:\n%s", format, out)
		}
	}
}
