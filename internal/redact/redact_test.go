package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNumbers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"paid by card 4111111111111111", "paid by card XXXXXXXXXXXX1111"},
		{"4111111111111112", "4111111111111112"}, // fails Luhn: a reference, not a card
		{"uid 234567890124 ok", "uid XXXXXXXX0124 ok"},
		{"234567890125", "234567890125"}, // fails Verhoeff
		{"134567890124", "134567890124"}, // Aadhaar never starts with 0 or 1
		{"rrn 987654321090", "rrn 987654321090"},
		{"acct 0409000123456", "acct 0409000123456"},
		{"amount 1234.56 ref 12345", "amount 1234.56 ref 12345"},
		{"4111111111111111/234567890124", "XXXXXXXXXXXX1111/XXXXXXXX0124"},
		{"₹ 4111111111111111 é", "₹ XXXXXXXXXXXX1111 é"},
		// Grouped, as people write them: masked, separators kept.
		{"Aadhaar 7391 4628 0552 verified", "Aadhaar XXXX XXXX 0552 verified"},
		{"card 4111-1111-1111-1111.", "card XXXX-XXXX-XXXX-1111."},
		{"card 4111 1111 1111 1111", "card XXXX XXXX XXXX 1111"},
		{"amex 3782 822463 10005", "amex XXXX XXXXXX X0005"},
		{"7391 4628 0553", "7391 4628 0553"},                                 // fails Verhoeff
		{"4111-1111 1111-1111", "4111-1111 1111-1111"},                       // separators mixed: not one number
		{"on 2026-11-28 10:00:01", "on 2026-11-28 10:00:01"},                 // a date and a time
		{"ids 1234 5678 9012 34567 89012", "ids 1234 5678 9012 34567 89012"}, // 21 digits: not a card
		{"AEPS 7391 4628 0552 1500.00", "AEPS XXXX XXXX 0552 1500.00"},       // an amount after it
		{"uid 7391 4628 0552 100 INR", "uid XXXX XXXX 0552 100 INR"},
		{"7391 4628 0552 7391 4628 0552", "XXXX XXXX 0552 XXXX XXXX 0552"},
	}
	for _, tt := range tests {
		if got := Numbers(tt.in); got != tt.want {
			t.Errorf("Numbers(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLast4(t *testing.T) {
	for in, want := range map[string]string{
		"4111111111111111": "XXXXXXXXXXXX1111", "12345": "X2345", "1234": "XXXX", "": "", "ab": "XX", "ééééé": "Xéééé",
	} {
		if got := Last4(in); got != want {
			t.Errorf("Last4(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeys(t *testing.T) {
	for _, tt := range []struct {
		key             string
		removed, masked bool
	}{
		{"pidData", true, false}, {"CARDPIN", true, false}, {"cardNumber", false, true},
		{"uid", false, true}, {"amount", false, false},
		// Case, '_' and '-' are ignored.
		{"Aadhaar_Number", false, true}, {"aadhaar-number", false, true}, {"AADHAAR_NO", false, true},
		{"PID_DATA", true, false}, {"card-pin", true, false}, {"session_key", true, false},
		{"card_number_x", false, false}, {"aadhaar_", false, true}, {"", false, false}, {"__--", false, false},
		{"p_i_d_d_a_t_a" + strings.Repeat("_", 100), true, false}, {strings.Repeat("a", 65), false, false},
	} {
		if got := IsRemovedKey(tt.key); got != tt.removed {
			t.Errorf("IsRemovedKey(%q) = %v, want %v", tt.key, got, tt.removed)
		}
		if got := IsMaskedKey(tt.key); got != tt.masked {
			t.Errorf("IsMaskedKey(%q) = %v, want %v", tt.key, got, tt.masked)
		}
		if got := IsSensitiveKeyBytes([]byte(tt.key)); got != (tt.removed || tt.masked) {
			t.Errorf("IsSensitiveKeyBytes(%q) = %v, want %v", tt.key, got, tt.removed || tt.masked)
		}
	}
}

func TestJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"keys", `{"cardPin":"1234","cardNumber":"4111111111111111","n":1.10}`,
			`{"cardNumber":"XXXXXXXXXXXX1111","cardPin":"[REDACTED]","n":1.10}`},
		{"spelt otherwise", `{"Aadhaar_Number":"234567890124","PID-DATA":"<xml/>"}`,
			`{"Aadhaar_Number":"XXXXXXXX0124","PID-DATA":"[REDACTED]"}`},
		{"secret", `{"SEKRET":"xSEKRETy"}`, `{"[REDACTED]":"x[REDACTED]y"}`},
		{"not JSON", `<p>SEKRET</p>`, `<p>[REDACTED]</p>`},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(JSON([]byte(tt.in), "SEKRET")); got != tt.want {
				t.Errorf("JSON(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
	if got := RawJSON([]byte(`{"a":"b`), "x"); !json.Valid(got) {
		t.Errorf("RawJSON(truncated) = %s, not JSON", got)
	}
}

func TestKeysAllocateNothing(t *testing.T) {
	key := []byte("Aadhaar_Number_and_some_more_text_past_thirty_two_bytes")
	if n := testing.AllocsPerRun(100, func() { IsSensitiveKeyBytes(key); IsRemovedKey("Card-PIN"); IsMaskedKey("Card-PIN") }); n != 0 {
		t.Errorf("key checks allocate %v times, want 0", n)
	}
}
