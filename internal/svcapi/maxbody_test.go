package svcapi_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// hugeBody streams n bytes that are not JSON, with the client secret near
// the start, without holding them in memory.
func hugeBody(n int) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		w.WriteHeader(http.StatusOK)
		chunk := bytes.Repeat([]byte("<html>oops "), 1<<12)
		copy(chunk[1000:], testSecret) // straddles the 1 KiB cut
		for sent := 0; sent < n && r.Context().Err() == nil; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			chunk = bytes.Repeat([]byte("x"), len(chunk))
		}
	}
}

func TestHugeAnswerIsCappedAndOnlyItsHeadLogged(t *testing.T) {
	for _, billable := range []bool{false, true} {
		name := map[bool]string{false: "report page", true: "billable"}[billable]
		t.Run(name, func(t *testing.T) {
			f := newFake(t, hugeBody(100<<20))
			cfg := testConfig(f.URL)
			cfg.MaxBody = 1 << 20
			cfg.MaxRetries = 1
			var buf bytes.Buffer
			cfg.Recorders = []svcapi.Recorder{svcapi.NewJSONLRecorder(&buf)}
			c := newClient(t, cfg)
			var err error
			if billable {
				_, err = c.Do(context.Background(), svcapi.OpVerifyPanPlusV2, verifyPanRequest())
				if !errors.Is(err, svcapi.ErrPending) {
					t.Fatalf("billable call: err = %v, want pending", err)
				}
				if f.count() != 1 {
					t.Errorf("billable call sent %d times, want 1", f.count())
				}
			} else {
				_, err = c.Statement(context.Background(), statementRequest(false))
				var re *svcapi.ResponseError
				if !errors.As(err, &re) {
					t.Fatalf("report call: err = %v, want *ResponseError", err)
				}
				if f.count() != 2 {
					t.Errorf("report call sent %d times, want 2 (retried once)", f.count())
				}
			}
			if !strings.Contains(err.Error(), "--max-body") {
				t.Errorf("err = %v, want it to name --max-body", err)
			}
			log := buf.String()
			if strings.Contains(log, testSecret) || strings.Contains(log, testSecret[:8]) {
				t.Errorf("call log holds the secret: %.300s", log)
			}
			for i, line := range strings.Split(strings.TrimSpace(log), "\n") {
				if len(line) > 4096 {
					t.Errorf("call log line %d is %d bytes, want the head only", i+1, len(line))
				}
				if !strings.Contains(line, "cap (--max-body)") {
					t.Errorf("call log line %d has no note: %.200s", i+1, line)
				}
			}
		})
	}
}

func TestLongNonJSONAnswerKeepsOnlyItsHead(t *testing.T) {
	f := newFake(t, serve(http.StatusBadGateway, bytes.Repeat([]byte("<p>bad gateway</p>"), 1<<16)))
	cfg := testConfig(f.URL)
	cfg.MaxRetries = -1
	cfg.Timeout = 5 * time.Second
	var buf bytes.Buffer
	cfg.Recorders = []svcapi.Recorder{svcapi.NewJSONLRecorder(&buf)}
	c := newClient(t, cfg)
	if _, err := c.Statement(context.Background(), statementRequest(false)); err == nil {
		t.Fatal("want an error for an HTML answer")
	}
	if n := buf.Len(); n > 4096 || !strings.Contains(buf.String(), "not JSON") {
		t.Errorf("call log = %d bytes (%.200s), want the first KiB with a note", n, buf.String())
	}
}
