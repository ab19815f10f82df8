package sandbox

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/url"
)

// CallbackValue is one value the service delivers to the client's QR eKYC
// callback URL (spec Part 6), with the plaintext it encrypts.
type CallbackValue struct {
	// Payload is the plaintext: a made-up person as JSON. The spec does not
	// show the real payload; this shape is the sandbox's own.
	Payload []byte
	// Value is the delivered value: URL-encoded standard base64 of the IV
	// followed by the AES-256-CBC ciphertext of the PKCS#7-padded payload.
	Value string
}

// callbackPayload is the sandbox's QR eKYC result. UID is an Aadhaar-like
// number of the 9999 test range, unmasked, so that masking can be tried.
type callbackPayload struct {
	Status      string `json:"status"`
	ExternalRef string `json:"externalRef"`
	Name        string `json:"name"`
	DOB         string `json:"dob"`
	Gender      string `json:"gender"`
	Mobile      string `json:"mobile"`
	Address     string `json:"address"`
	UID         string `json:"uid"`
	FaceMatch   int    `json:"faceMatchScore"`
}

// CallbackKey returns the sandbox's shared encryption key for a seed: 32
// bytes (AES-256), made up and not a secret.
func CallbackKey(seed int64) []byte {
	return hashBytes(32, uint64(seed), 0xca11bac4)
}

// CallbackValues returns n callback values for a seed, encrypted with
// CallbackKey(seed), each with its own IV. One seed, the same values.
func CallbackValues(seed int64, n int) ([]CallbackValue, error) {
	key := CallbackKey(seed)
	out := make([]CallbackValue, 0, n)
	for i := range n {
		h := mix(uint64(seed), 0xca11bac4, uint64(i))
		p := newPersona(h)
		gender := "M"
		if p.gender == "Female" {
			gender = "F"
		}
		plain, err := json.Marshal(callbackPayload{
			Status:      "SUCCESS",
			ExternalRef: fmt.Sprintf("OKYC%d%06d", seed, i+1),
			Name:        p.upper(),
			DOB:         p.dob.Format("02-01-2006"),
			Gender:      gender,
			Mobile:      p.mobile,
			Address:     p.address(),
			UID:         fmt.Sprintf("9999%08d", h%100_000_000),
			FaceMatch:   int(80 + h>>40%20),
		})
		if err != nil {
			return nil, err
		}
		v, err := EncryptCallback(plain, key, hashBytes(aes.BlockSize, h, 0x1f))
		if err != nil {
			return nil, err
		}
		out = append(out, CallbackValue{Payload: plain, Value: v})
	}
	return out, nil
}

// EncryptCallback does what the service does to a callback payload (the
// inverse of svcapi.DecodeCallback): PKCS#7 padding, AES-256-CBC with key
// and iv, the IV prepended, standard base64, URL-encoded. The error says
// that the key is not 32 bytes or the IV not 16.
func EncryptCallback(plain, key, iv []byte) (string, error) {
	if len(key) != 32 || len(iv) != aes.BlockSize {
		return "", fmt.Errorf("encrypt callback: want a 32-byte key and a %d-byte IV, have %d and %d", aes.BlockSize, len(key), len(iv))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", fmt.Errorf("encrypt callback: %w", err)
	}
	n := aes.BlockSize - len(plain)%aes.BlockSize
	padded := append(append([]byte(nil), plain...), bytes.Repeat([]byte{byte(n)}, n)...)
	out := make([]byte, aes.BlockSize+len(padded))
	copy(out, iv)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out[aes.BlockSize:], padded)
	return url.QueryEscape(base64.StdEncoding.EncodeToString(out)), nil
}

// hashBytes returns n bytes derived from the inputs (mix, block by block).
func hashBytes(n int, vals ...uint64) []byte {
	b := make([]byte, 0, n+8)
	for i := uint64(0); len(b) < n; i++ {
		b = binary.BigEndian.AppendUint64(b, mix(append(vals, i)...))
	}
	return b[:n]
}
