package svcapi_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

var (
	callbackKey = []byte("0123456789abcdef0123456789ABCDEF") // 32 bytes, test only
	callbackIV  = []byte("fixed-test-iv-16")
)

// encryptCallback is what the service does: PKCS#7 pad, AES-256-CBC with
// the IV prepended, base64.
func encryptCallback(tb testing.TB, plain, key, iv []byte, enc *base64.Encoding) string {
	tb.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		tb.Fatal(err)
	}
	n := aes.BlockSize - len(plain)%aes.BlockSize
	padded := append(append([]byte(nil), plain...), bytes.Repeat([]byte{byte(n)}, n)...)
	out := make([]byte, aes.BlockSize+len(padded))
	copy(out, iv)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out[aes.BlockSize:], padded)
	return enc.EncodeToString(out)
}

func TestDecodeCallbackRoundTrip(t *testing.T) {
	// The IV is chosen so that the base64 text holds '+' and '/'.
	iv := []byte{0xfb, 0xef, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0xfe}
	tests := []struct {
		name  string
		plain string
		value func(string) string // from the standard base64 text
		enc   *base64.Encoding
	}{
		{"URL-encoded standard base64", `{"name":"TEST PERSON ONE","dob":"01-01-1990"}`, url.QueryEscape, base64.StdEncoding},
		{"plain standard base64", "<xml>test</xml>", func(s string) string { return s }, base64.StdEncoding},
		{"'+' turned into space", "a block of exactly 32 bytes!!!!!", func(s string) string { return strings.ReplaceAll(s, "+", " ") }, base64.StdEncoding},
		{"URL base64 unpadded", "x", func(s string) string { return s }, base64.RawURLEncoding},
		{"URL-encoded URL base64", "raw \x00\x01 bytes", url.QueryEscape, base64.URLEncoding},
		{"empty plaintext", "", func(s string) string { return s }, base64.StdEncoding},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			value := tc.value(encryptCallback(t, []byte(tc.plain), callbackKey, iv, tc.enc))
			got, err := svcapi.DecodeCallback(value, callbackKey)
			if err != nil || string(got) != tc.plain {
				t.Fatalf("DecodeCallback(%q) = %q, %v; want %q", value, got, err, tc.plain)
			}
		})
	}
}

func TestDecodeCallbackErrors(t *testing.T) {
	good := encryptCallback(t, []byte("hello callback"), callbackKey, callbackIV, base64.StdEncoding)
	raw, _ := base64.StdEncoding.DecodeString(good)
	tests := []struct {
		name  string
		value string
		key   []byte
		want  error
	}{
		{"short key", good, callbackKey[:16], svcapi.ErrCallbackKey},
		{"long key", good, append(callbackKey, 'x'), svcapi.ErrCallbackKey},
		{"IV only", base64.StdEncoding.EncodeToString(raw[:16]), callbackKey, svcapi.ErrCallbackShort},
		{"empty", "", callbackKey, svcapi.ErrCallbackShort},
		{"not whole blocks", base64.StdEncoding.EncodeToString(raw[:len(raw)-3]), callbackKey, svcapi.ErrCallbackBlocks},
		{"wrong key", good, []byte("ffffffffffffffffffffffffffffffff"), svcapi.ErrCallbackPadding},
		{"tampered last block", base64.StdEncoding.EncodeToString(append(raw[:len(raw)-1:len(raw)-1], raw[len(raw)-1]^0x5a)), callbackKey, svcapi.ErrCallbackPadding},
		{"not base64", "!!!not base64!!!", callbackKey, svcapi.ErrCallbackBase64},
		{"bad URL escape", "%zz", callbackKey, svcapi.ErrCallbackURL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := svcapi.DecodeCallback(tc.value, tc.key)
			if err == nil {
				t.Fatalf("DecodeCallback = %q, nil; want an error", got)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("DecodeCallback err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestMaskCallback(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"12 digits in a string", `{"name":"A","id":"ref 999941057058 ok"}`, `{"id":"ref XXXXXXXX7058 ok","name":"A"}`},
		{"grouped by spaces", `{"note":"9999 4105 7058"}`, `{"note":"XXXXXXXXXX7058"}`},
		{"grouped by hyphens", `{"note":"9999-4105-7058."}`, `{"note":"XXXXXXXXXX7058."}`},
		{"bare number", `{"n":999941057058,"amount":12.5}`, `{"amount":12.5,"n":"XXXXXXXX7058"}`},
		{"masked key", `{"uid":"ABCD-12"}`, `{"uid":"XXXD-12"}`},
		{"redacted key", `{"hmac":"abc","x":[1]}`, `{"hmac":"[REDACTED]","x":[1]}`},
		{"nested in an array", `[{"a":["x999941057058"]}]`, `[{"a":["xXXXXXXXX7058"]}]`},
		{"13 digits left alone", `{"n":"9999410570581","m":9999410570581}`, `{"m":9999410570581,"n":"9999410570581"}`},
		{"11 digits left alone", `{"n":"99994105705"}`, `{"n":"99994105705"}`},
		{"grouped card left alone", `{"card":"4111 1111 1111 1111"}`, `{"card":"4111 1111 1111 1111"}`},
		{"after another number", `{"a":"flat 12 999941057058"}`, `{"a":"flat 12 XXXXXXXX7058"}`},
		{"escaped quote before", `{"a":"\"999941057058\""}`, `{"a":"\"XXXXXXXX7058\""}`},
		{"text", "<kyc uid=\"999941057058\" phone=\"919876543210\"/>", "<kyc uid=\"XXXXXXXX7058\" phone=\"XXXXXXXX3210\"/>"},
		{"text without numbers", "plain", "plain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(svcapi.MaskCallback([]byte(tc.in))); got != tc.want {
				t.Errorf("MaskCallback(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
