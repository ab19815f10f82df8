package svcapi

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Errors of DecodeCallback, matched with errors.Is.
var (
	// ErrCallbackURL: the value is not URL-encoding (a bad %-escape).
	ErrCallbackURL = errors.New("callback value is not URL-encoded text")
	// ErrCallbackBase64: the URL-decoded value is not base64.
	ErrCallbackBase64 = errors.New("callback value is not base64")
	// ErrCallbackKey: the key is not 32 bytes long (AES-256).
	ErrCallbackKey = errors.New("callback key must be 32 bytes (AES-256)")
	// ErrCallbackShort: the value holds no ciphertext after the IV.
	ErrCallbackShort = errors.New("callback value too short")
	// ErrCallbackBlocks: the ciphertext is not a whole number of blocks.
	ErrCallbackBlocks = errors.New("callback ciphertext is not a multiple of the block size")
	// ErrCallbackPadding: the plaintext's PKCS#7 padding is wrong, most often
	// because the key is not the one the service encrypted with.
	ErrCallbackPadding = errors.New("callback padding does not verify: wrong key or corrupted value")
)

// DecodeCallback decodes the value delivered to the QR eKYC callback (spec
// §6): URL-decode, base64-decode (standard or URL alphabet, padded or not),
// take the first 16 bytes as the IV and the rest as the ciphertext, decrypt
// with AES-256-CBC and remove the PKCS#7 padding. It returns the plaintext
// bytes ("raw data output"); their format is not shown in the spec.
//
// The errors wrap ErrCallbackKey, ErrCallbackURL, ErrCallbackBase64,
// ErrCallbackShort, ErrCallbackBlocks or ErrCallbackPadding. They never hold
// the key, the value or the plaintext.
func DecodeCallback(value string, key []byte) ([]byte, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("decode callback: key of %d bytes: %w", len(key), ErrCallbackKey)
	}
	s, err := url.QueryUnescape(value)
	if err != nil {
		return nil, fmt.Errorf("decode callback: %w", ErrCallbackURL) // err quotes the value
	}
	// Base64 holds no spaces: a space is a '+' that was not URL-encoded.
	// Line breaks are dropped.
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ':
			return '+'
		case '\n', '\r':
			return -1
		}
		return r
	}, s)
	raw, err := decodeBase64(s)
	if err != nil {
		return nil, fmt.Errorf("decode callback: %w: %w", ErrCallbackBase64, err)
	}
	if len(raw) <= aes.BlockSize {
		return nil, fmt.Errorf("decode callback: %d bytes, want an IV of %d and at least one block: %w",
			len(raw), aes.BlockSize, ErrCallbackShort)
	}
	iv, ct := raw[:aes.BlockSize], raw[aes.BlockSize:]
	if len(ct)%aes.BlockSize != 0 {
		return nil, fmt.Errorf("decode callback: ciphertext of %d bytes: %w", len(ct), ErrCallbackBlocks)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("decode callback: %w", err)
	}
	plain := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, ct)
	n := int(plain[len(plain)-1])
	if n == 0 || n > aes.BlockSize || !bytes.Equal(plain[len(plain)-n:], bytes.Repeat([]byte{byte(n)}, n)) {
		return nil, fmt.Errorf("decode callback: %w", ErrCallbackPadding)
	}
	return plain[:len(plain)-n], nil
}

// decodeBase64 accepts the standard and URL alphabets, with or without
// padding.
func decodeBase64(s string) ([]byte, error) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if !strings.HasSuffix(s, "=") {
		enc = enc.WithPadding(base64.NoPadding)
	}
	return enc.DecodeString(s)
}

// MaskCallback returns a decrypted callback payload with its identity
// numbers masked to their last four characters (MaskLast4), for showing it
// to people. A JSON payload first goes through Redact (RedactedKeys removed,
// MaskedKeys masked, at any depth; keys come out sorted); then, in any
// payload, every Aadhaar-like number is masked wherever it appears: 12
// digits, written together or grouped 4-4-4 by spaces or hyphens, that are
// not part of a longer number. In JSON such a number is masked inside
// strings, and a bare 12-digit number becomes a masked string, so the result
// stays valid JSON.
func MaskCallback(plain []byte) []byte {
	if !json.Valid(plain) {
		return maskAadhaarLike(plain)
	}
	doc := Redact(plain)
	var out []byte
	for i := 0; i < len(doc); {
		switch c := doc[i]; {
		case c == '"':
			j := i + 1
			for j < len(doc) && doc[j] != '"' {
				if doc[j] == '\\' {
					j++
				}
				j++
			}
			out = append(append(append(out, '"'), maskAadhaarLike(doc[i+1:j])...), '"')
			i = j + 1
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(doc) && strings.IndexByte("+-.0123456789eE", doc[j]) >= 0 {
				j++
			}
			if num := doc[i:j]; len(num) == 12 && aadhaarLike.Match(num) {
				out = append(append(append(out, '"'), MaskLast4(string(num))...), '"')
			} else {
				out = append(out, num...)
			}
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

var aadhaarLike = regexp.MustCompile(`[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{4}`)

// maskAadhaarLike masks, in text, every run of 12 digits (together or
// grouped 4-4-4) that is not part of a longer number: a digit right before
// or after it, or a group of four digits joined by a space or hyphen (the
// rest of a grouped card number), leaves it alone.
func maskAadhaarLike(b []byte) []byte {
	digits := func(i, step int) int { // digits in the run starting at i, going step
		n := 0
		for ; i >= 0 && i < len(b) && b[i] >= '0' && b[i] <= '9'; i += step {
			n++
		}
		return n
	}
	sep := func(i int) bool { return i >= 0 && i < len(b) && (b[i] == ' ' || b[i] == '-') }
	var out []byte
	last := 0
	for _, m := range aadhaarLike.FindAllIndex(b, -1) {
		i, j := m[0], m[1]
		if digits(i-1, -1) > 0 || digits(j, 1) > 0 || sep(i-1) && digits(i-2, -1) == 4 || sep(j) && digits(j+1, 1) == 4 {
			continue
		}
		out = append(append(out, b[last:i]...), MaskLast4(string(b[i:j]))...)
		last = j
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}
