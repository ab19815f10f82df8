package svcapi

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Errors of DecodeCallback, matched with errors.Is.
var (
	// ErrCallbackKey: the key is not 32 bytes long (AES-256).
	ErrCallbackKey = errors.New("callback key must be 32 bytes (AES-256)")
	// ErrCallbackShort: the value holds no ciphertext after the IV.
	ErrCallbackShort = errors.New("callback value too short")
	// ErrCallbackBlocks: the ciphertext is not a whole number of blocks.
	ErrCallbackBlocks = errors.New("callback ciphertext is not a multiple of the block size")
	// ErrCallbackPadding: the plaintext's PKCS#7 padding is wrong, most often
	// because the key is not the one the service encrypted with.
	ErrCallbackPadding = errors.New("callback padding is invalid (wrong key?)")
)

// DecodeCallback decodes the value delivered to the QR eKYC callback (spec
// §6): URL-decode, base64-decode (standard or URL alphabet, padded or not),
// take the first 16 bytes as the IV and the rest as the ciphertext, decrypt
// with AES-256-CBC and remove the PKCS#7 padding. It returns the plaintext
// bytes ("raw data output"); their format is not shown in the spec.
//
// The errors wrap ErrCallbackKey, ErrCallbackShort, ErrCallbackBlocks or
// ErrCallbackPadding, or say that the value is not base64.
func DecodeCallback(value string, key []byte) ([]byte, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("decode callback: key of %d bytes: %w", len(key), ErrCallbackKey)
	}
	s, err := url.QueryUnescape(value)
	if err != nil {
		return nil, fmt.Errorf("decode callback: url-decode: %w", err)
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
		return nil, fmt.Errorf("decode callback: base64: %w", err)
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
