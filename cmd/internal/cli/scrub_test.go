package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestExitLineIsSafe: the error line is one line, whatever the error
// carries: line breaks and escapes are escaped, a URL's password and an
// Aadhaar number masked.
func TestExitLineIsSafe(t *testing.T) {
	var stderr bytes.Buffer
	Exit(errors.New("open postgres://svc:hunter2@db/x: bad\n level=ERROR msg=forged \x1b[2J uid 234567890124"), &stderr)
	line := stderr.String()
	if strings.Count(line, "\n") != 1 || strings.ContainsAny(line, "\x1b") || strings.Contains(line, "hunter2") ||
		strings.Contains(line, "234567890124") {
		t.Errorf("Exit wrote %q", line)
	}
}

// TestLoggerScrubsTheCommandsSecrets: the logger of a command removes the
// client secret and the database password, in any spelling, from every
// line.
func TestLoggerScrubsTheCommandsSecrets(t *testing.T) {
	t.Setenv("PGPASSWORD", "Pg-Pass-0042")
	c := Common{ClientSecret: "Cl1ent-Secret-77", DB: "postgres://svc:Url-Pass-9931@db/x", LogFormat: "json", LogLevel: "info"}
	var out bytes.Buffer
	log, err := c.Logger(context.Background(), &out)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("got CL1ENT-SECRET-77", "status", "pg-pass-0042 and Url-Pass-\n9931", "err", errors.New("Cl1ent%2DSecret-77"))
	for _, v := range []string{"cl1ent", "pg-pass", "url-pass"} {
		if strings.Contains(strings.ToLower(out.String()), v) {
			t.Errorf("the log holds %s: %s", v, out.String())
		}
	}
}
