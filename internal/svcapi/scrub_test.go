package svcapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The biometric value of the request a hostile service quotes back.
const pidMarker = "PidMarker-77QxZ-capture"

// quoted spells v as a hostile service may: upper and lower case, \u
// escapes, URL-encoded, split by a line break, base64.
func quoted(v string) string {
	var js strings.Builder
	for i := 0; i < len(v); i++ {
		fmt.Fprintf(&js, `\u%04x`, v[i])
	}
	return strings.Join([]string{v, strings.ToUpper(v), strings.ToLower(v), js.String(), url.QueryEscape(v),
		v[:4] + `\r\n` + v[4:], base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte("k:" + v))}, " | ")
}

// balanceBody is a balance inquiry whose every mandatory field is set,
// the biometric capture carrying pidMarker.
func balanceBody() map[string]any {
	op, _ := svcapi.Lookup(svcapi.OpBalanceInquiry)
	body := map[string]any{}
	for _, f := range op.Fields {
		if f.Req == svcapi.Mandatory {
			svcapi.SetPath(body, f.Name, "1")
		}
	}
	svcapi.SetPath(body, "externalRef", "BAL0001")
	svcapi.SetPath(body, "biometricData.pidData", pidMarker)
	return body
}

// TestAnswersScrubbedOfRequestValues: a service quotes the request's
// biometrics and the client secret back, in many spellings, in every field
// of its success and failure answers. Neither the envelope nor the error
// returned, the call log or the client's log lines hold any of them.
func TestAnswersScrubbedOfRequestValues(t *testing.T) {
	h, _ := json.Marshal(quoted(pidMarker) + " / " + quoted(testSecret))
	q := strings.ReplaceAll(string(h), `\\u`, `\u`) // keep the \u escapes as escapes
	q = strings.ReplaceAll(q, `\\r\\n`, `\r\n`)
	for _, tc := range []struct {
		name string
		code string
	}{{"success", "TXN"}, {"failure", "ERR"}} {
		t.Run(tc.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"statuscode":%q,"actcode":%s,"status":%s,"svc_uuid":%s,"orderid":%s,"internalCode":%s,
				"data":{"externalRef":%s,"bankName":%s,"openingBalance":"10","payableValue":"1","closingBalance":"9"}}`,
				tc.code, q, q, q, q, q, q, q)
			f := newFake(t, serve(http.StatusOK, []byte(body)))
			var calls, logs bytes.Buffer
			cfg := testConfig(f.URL)
			cfg.Recorders = []svcapi.Recorder{svcapi.NewJSONLRecorder(&calls)}
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			env, err := newClient(t, cfg).Do(context.Background(), svcapi.OpBalanceInquiry, balanceBody())
			var apiErr *svcapi.Error
			if tc.code == "ERR" && !errors.As(err, &apiErr) || tc.code == "TXN" && err != nil {
				t.Fatalf("Do = %v", err)
			}
			envText, _ := json.Marshal(env)
			errText := ""
			if err != nil {
				errText = err.Error()
			}
			for name, text := range map[string]string{"envelope": string(envText) + string(env.Data), "error": errText,
				"call log": calls.String(), "log": logs.String()} {
				for _, v := range []string{pidMarker, testSecret} {
					if redact.NewScrubber(v).String(text) != text {
						t.Errorf("%s holds a spelling of %q:\n%s", name, v, text)
					}
				}
			}
			if !strings.Contains(string(env.Status), redact.Marker) {
				t.Errorf("status = %q, want the values replaced by %s", env.Status, redact.Marker)
			}
		})
	}
}
