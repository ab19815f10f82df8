package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// A call's line hash (calls.line_hash, the SHA-256 of its line) is stored
// as its 32 bytes (a BLOB on SQLite, bytea on PostgreSQL: migration 0150);
// above the store it is 64 lowercase hex digits (recon.Call.Hash,
// StoredCall.Hash). The store converts at its boundary: appendHash on the
// way in (the values inserted, the keys looked up), hashHex on the way out.
// Lowercase hex sorts as its bytes do, so rows ordered by line_hash come
// in the order their hex would give.

// hashLen is the length of a stored line hash in bytes.
const hashLen = sha256.Size

// appendHash appends the bytes of the line hash h to dst. h that is not
// 64 lowercase hex digits is an error naming it: nothing else is stored.
func appendHash(dst []byte, h string) ([]byte, error) {
	if len(h) != 2*hashLen {
		return dst, badHash(h)
	}
	for i := 0; i < len(h); i += 2 {
		hi, ok := hexDigit(h[i])
		lo, ok2 := hexDigit(h[i+1])
		if !ok || !ok2 {
			return dst, badHash(h)
		}
		dst = append(dst, hi<<4|lo)
	}
	return dst, nil
}

// hexDigit is the value of the lowercase hex digit c.
func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// badHash is the error of a malformed line hash h (quoted, at most 80
// characters of it).
func badHash(h string) error {
	q := h
	if len(q) > 80 {
		q = q[:80] + "…"
	}
	return fmt.Errorf("line hash %q is not a SHA-256 (64 lowercase hex digits)", q)
}

// hashHex is the stored line hash b as its callers get it, in hex.
func hashHex(b []byte) (string, error) {
	if len(b) != hashLen {
		return "", fmt.Errorf("stored line hash of %d bytes, not %d", len(b), hashLen)
	}
	return hex.EncodeToString(b), nil
}
