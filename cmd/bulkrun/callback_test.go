package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

var (
	// cbKey is a test key whose every form is easy to search for.
	cbKey = []byte("K3y-0f-the-callback-test-32bytes")
	cbIV  = []byte{0xfb, 0xef, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0xfe} // base64 holds '+' and '/'
	// cbPayload holds markers the no-leak test looks for.
	cbPayload = `{"name":"ZEBULON QUIXOTE","dob":"01-02-1990","uid":"999941057058","address":"7, Marker Lane"}`
)

// encryptCB encrypts plain as the service does (PKCS#7, AES-256-CBC, the IV
// first) and returns the standard base64 text, not yet URL-encoded.
func encryptCB(tb testing.TB, plain, key, iv []byte) string {
	tb.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		tb.Fatal(err)
	}
	n := aes.BlockSize - len(plain)%aes.BlockSize
	padded := append(append([]byte(nil), plain...), bytes.Repeat([]byte{byte(n)}, n)...)
	out := append(append([]byte(nil), iv...), make([]byte, len(padded))...)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out[aes.BlockSize:], padded)
	return base64.StdEncoding.EncodeToString(out)
}

// decodeFile writes lines to a file and runs bulkrun callback decode on it
// with key as SVC_ENCRYPTION_KEY.
func decodeFile(tb testing.TB, key string, lines []string, args ...string) (int, string, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "values.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	return runCLIEnv(tb, []string{keyEnv + "=" + key}, append(append([]string{"callback", "decode"}, args...), path)...)
}

// keyForms are the accepted spellings of cbKey.
func keyForms() map[string]string {
	return map[string]string{
		"raw":              string(cbKey),
		"hex":              hex.EncodeToString(cbKey),
		"HEX":              strings.ToUpper(hex.EncodeToString(cbKey)),
		"base64":           base64.StdEncoding.EncodeToString(cbKey),
		"base64 URL":       base64.URLEncoding.EncodeToString(cbKey),
		"base64 unpadded":  base64.RawStdEncoding.EncodeToString(cbKey),
		"base64 URL nopad": base64.RawURLEncoding.EncodeToString(cbKey),
		"hex with newline": hex.EncodeToString(cbKey) + "\n",
	}
}

func TestCallbackDecodeRoundTrip(t *testing.T) {
	binary := []byte{0, 1, 2, 0xff, 'x', '\n', 0x80}
	lines := []string{
		url.QueryEscape(encryptCB(t, []byte(cbPayload), cbKey, cbIV)),
		"",
		encryptCB(t, binary, cbKey, cbIV), // not URL-encoded: its '+' read as a space
		url.QueryEscape(encryptCB(t, []byte("{\n  \"pretty\": [1, 2]\n}\n"), cbKey, cbIV)),
		url.QueryEscape(strings.TrimRight(base64.URLEncoding.EncodeToString(must(base64.StdEncoding.DecodeString(encryptCB(t, []byte("<xml/>"), cbKey, cbIV)))), "=")),
		encryptCB(t, []byte("\xff{}"), cbKey, cbIV) + "\r", // not UTF-8: binary
	}
	want := strings.Join([]string{
		`{"line":1,"payload":` + cbPayload + `}`,
		`{"line":3,"payload":"` + base64.StdEncoding.EncodeToString(binary) + `","binary":true}`,
		`{"line":4,"payload":{"pretty":[1,2]}}`,
		`{"line":5,"payload":"` + base64.StdEncoding.EncodeToString([]byte("<xml/>")) + `","binary":true}`,
		`{"line":6,"payload":"` + base64.StdEncoding.EncodeToString([]byte("\xff{}")) + `","binary":true}`,
	}, "\n") + "\n"
	for form, key := range keyForms() {
		t.Run(form, func(t *testing.T) {
			code, stdout, stderr := decodeFile(t, key, lines)
			if code != cli.ExitOK || stdout != want || stderr != "" {
				t.Errorf("callback decode exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, want, stderr)
			}
		})
	}
}

func TestCallbackDecodeStdin(t *testing.T) {
	for _, args := range [][]string{{"callback", "decode", "-"}, {"callback", "decode"}} {
		stdin = strings.NewReader(url.QueryEscape(encryptCB(t, []byte(`{"a":1}`), cbKey, cbIV)) + "\n")
		code, stdout, stderr := runCLIEnv(t, []string{keyEnv + "=" + hex.EncodeToString(cbKey)}, args...)
		if want := `{"line":1,"payload":{"a":1}}` + "\n"; code != 0 || stdout != want {
			t.Errorf("%q exit %d, stdout %q, stderr %q; want 0, %q", args, code, stdout, stderr, want)
		}
	}
	stdin = os.Stdin
}

func TestCallbackDecodeBadLines(t *testing.T) {
	good := encryptCB(t, []byte(`{"ok":true}`), cbKey, cbIV)
	raw := must(base64.StdEncoding.DecodeString(good))
	tampered := append([]byte(nil), raw...)
	tampered[len(tampered)-1] ^= 0x5a
	wrongKey := encryptCB(t, []byte(`{"ok":true}`), []byte("another-key-of-exactly-32-bytes!"), cbIV)
	lines := []string{
		url.QueryEscape(good),
		"abc%zz", // 2
		"!!!***", // 3
		base64.StdEncoding.EncodeToString(raw[:16]),         // 4: IV only
		base64.StdEncoding.EncodeToString(raw[:len(raw)-5]), // 5
		base64.StdEncoding.EncodeToString(tampered),         // 6
		url.QueryEscape(wrongKey),                           // 7
		good,                                                // 8
	}
	code, stdout, stderr := decodeFile(t, hex.EncodeToString(cbKey), lines)
	if code != cli.ExitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	if want := "{\"line\":1,\"payload\":{\"ok\":true}}\n{\"line\":8,\"payload\":{\"ok\":true}}\n"; stdout != want {
		t.Errorf("stdout = %q, want the good lines %q", stdout, want)
	}
	for n, reason := range map[int]string{
		2: "not URL-encoding",
		3: "not base64",
		4: "shorter than one block",
		5: "not a multiple of the block size",
		6: "wrong key or corrupted value",
		7: "wrong key or corrupted value",
	} {
		var got []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, fmt.Sprintf(": line %d: ", n)) {
				got = append(got, l)
			}
		}
		if len(got) != 1 || !strings.Contains(got[0], reason) {
			t.Errorf("stderr lines naming line %d: %q; want one saying %q", n, got, reason)
		}
	}
	if got := strings.Count(stderr, "\n"); got != 7 { // six lines and the summary
		t.Errorf("stderr has %d lines, want 7:\n%s", got, stderr)
	}
	if !strings.Contains(stderr, "6 of 8 callback values could not be decoded") {
		t.Errorf("stderr lacks the summary:\n%s", stderr)
	}
}

// failReader fails the test when anything reads it.
type failReader struct{ tb testing.TB }

func (r failReader) Read([]byte) (int, error) {
	r.tb.Error("input read before the key was checked")
	return 0, os.ErrClosed
}

func TestCallbackKeyErrors(t *testing.T) {
	defer func() { stdin = os.Stdin }()
	for name, key := range map[string]string{
		"missing":           "",
		"short":             "0123456789abcdef",
		"33 raw bytes":      string(cbKey) + "!",
		"64 not hex":        strings.Repeat("zq", 32),
		"base64 of 31":      base64.StdEncoding.EncodeToString(cbKey[:31]),
		"44 not base64":     strings.Repeat("*", 44),
		"hex of 16 + space": " " + hex.EncodeToString(cbKey[:16]) + "  ",
	} {
		t.Run(name, func(t *testing.T) {
			stdin = failReader{t}
			code, stdout, stderr := runCLIEnv(t, []string{keyEnv + "=" + key}, "callback", "decode", "-")
			if code != cli.ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, keyEnv) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line naming %s", code, stdout, stderr, keyEnv)
			}
			if len(key) > 4 && strings.Contains(stderr, strings.TrimSpace(key)) {
				t.Errorf("stderr shows the key: %q", stderr)
			}
		})
	}
	// A file that does not exist is not opened before the key is checked.
	code, _, stderr := runCLIEnv(t, []string{keyEnv + "="}, "callback", "decode", filepath.Join(t.TempDir(), "none.txt"))
	if code != cli.ExitUsage || !strings.Contains(stderr, keyEnv) {
		t.Errorf("no key and no file: exit %d, stderr %q; want 2 naming %s", code, stderr, keyEnv)
	}
}

func TestCallbackUsage(t *testing.T) {
	for _, args := range [][]string{{"callback"}, {"callback", "decrypt", "x"}, {"callback", "decode", "a", "b"}, {"callback", "decode", "--key", "x"}} {
		code, _, stderr := runCLIEnv(t, []string{keyEnv + "=" + hex.EncodeToString(cbKey)}, args...)
		if code != cli.ExitUsage || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
	code, stdout, _ := runCLIEnv(t, nil, "callback", "-h")
	if code != cli.ExitOK || !strings.Contains(stdout, "bulkrun callback decode values.txt") || !strings.Contains(stdout, keyEnv) {
		t.Errorf("callback -h: exit %d, stdout %s; want 0 with examples and the key's forms", code, stdout)
	}
}

func TestCallbackMask(t *testing.T) {
	lines := []string{
		url.QueryEscape(encryptCB(t, []byte(cbPayload), cbKey, cbIV)),
		url.QueryEscape(encryptCB(t, []byte(`<kyc uid="9999 4105 7058" />`), cbKey, cbIV)),
	}
	code, stdout, stderr := decodeFile(t, hex.EncodeToString(cbKey), lines, "--mask")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	out := strings.Split(strings.TrimSpace(stdout), "\n")
	var first struct{ Payload map[string]any }
	if err := json.Unmarshal([]byte(out[0]), &first); err != nil || first.Payload["uid"] != "XXXXXXXX7058" || first.Payload["name"] != "ZEBULON QUIXOTE" {
		t.Errorf("--mask line 1 = %s (%v); want uid XXXXXXXX7058 and the name kept", out[0], err)
	}
	var second struct{ Payload []byte }
	if err := json.Unmarshal([]byte(out[1]), &second); err != nil || string(second.Payload) != `<kyc uid="XXXXXXXXXX7058" />` {
		t.Errorf("--mask line 2 = %s → %q (%v); want the uid masked", out[1], second.Payload, err)
	}
}

// TestCallbackNoLeak checks that neither the key (in any spelling) nor the
// payload shows on stderr at any log level, in either log format, for good
// and bad lines.
func TestCallbackNoLeak(t *testing.T) {
	good := encryptCB(t, []byte(cbPayload), cbKey, cbIV)
	lines := []string{
		url.QueryEscape(good),
		good[:len(good)-8],
		good[:40] + "%zz",
		url.QueryEscape(encryptCB(t, []byte(cbPayload), []byte("another-key-of-exactly-32-bytes!"), cbIV)),
	}
	secrets := []string{"ZEBULON", "QUIXOTE", "999941057058", "Marker Lane", "01-02-1990"}
	for _, k := range keyForms() {
		secrets = append(secrets, strings.TrimSpace(k))
	}
	secrets = append(secrets, strings.ToUpper(hex.EncodeToString(cbKey)), string(cbKey[:16]), string(cbKey[16:]))
	for _, level := range []string{"debug", "info", "warn", "error"} {
		for _, format := range []string{"text", "json"} {
			for _, mask := range []bool{false, true} {
				args := []string{"--log-level", level, "--log-format", format}
				if mask {
					args = append(args, "--mask")
				}
				code, stdout, stderr := decodeFile(t, base64.StdEncoding.EncodeToString(cbKey), lines, args...)
				if code != cli.ExitFailure || !strings.Contains(stdout, "QUIXOTE") {
					t.Errorf("%v: exit %d, stdout %s; want 1 and the payload on stdout", args, code, stdout)
				}
				if level == "debug" && !strings.Contains(stderr, "callback value decoded") {
					t.Errorf("%v: stderr lacks the debug lines:\n%s", args, stderr)
				}
				for _, s := range secrets {
					if strings.Contains(stderr, s) {
						t.Errorf("%v: stderr holds %q:\n%s", args, s, stderr)
					}
				}
			}
		}
	}
}

// TestCallbackOpenSSL decodes values encrypted by an independent tool:
// openssl enc -aes-256-cbc (PKCS#7 padding by default) with the key and IV
// in hex.
func TestCallbackOpenSSL(t *testing.T) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl is not on PATH: the cross-check with an independent AES-256-CBC needs it (Debian: apt-get install openssl)")
	}
	plains := [][]byte{[]byte(cbPayload), {0, 0xff, 0x10, 'a', '\n'}, bytes.Repeat([]byte("16 bytes exactly"), 3)}
	var lines []string
	for _, p := range plains {
		cmd := exec.Command(bin, "enc", "-aes-256-cbc", "-K", hex.EncodeToString(cbKey), "-iv", hex.EncodeToString(cbIV))
		cmd.Stdin = bytes.NewReader(p)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		ct, err := cmd.Output()
		if err != nil {
			t.Fatalf("openssl enc: %v: %s", err, errOut.String())
		}
		lines = append(lines, url.QueryEscape(base64.StdEncoding.EncodeToString(append(append([]byte(nil), cbIV...), ct...))))
	}
	code, stdout, stderr := decodeFile(t, hex.EncodeToString(cbKey), lines)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for i, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var got struct {
			Payload json.RawMessage
			Binary  bool
		}
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		b := []byte(got.Payload)
		if got.Binary {
			var s string
			if err := json.Unmarshal(got.Payload, &s); err != nil {
				t.Fatal(err)
			}
			b = must(base64.StdEncoding.DecodeString(s))
		}
		if !bytes.Equal(b, plains[i]) {
			t.Errorf("openssl value %d decodes to %q, want %q", i+1, b, plains[i])
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
