package redact

import (
	"slices"
	"strings"
	"testing"
)

func TestDSN(t *testing.T) {
	for in, want := range map[string]string{
		"svcrecon.db":       "svcrecon.db",
		"/var/lib/x:y@z.db": "/var/lib/x:y@z.db",
		"postgres://svc:pw@db.internal:5432/svcrecon?sslmode=verify-full&password=pw": "postgres://svc@db.internal:5432/svcrecon",
		"postgresql://svc:p%40ss@[::1]/x#frag":                                        "postgresql://svc@[::1]/x",
		"postgres://db.internal/svcrecon?password=pw":                                 "postgres://db.internal/svcrecon",
		"postgres://svc:pw@db internal/x":                                             "postgres://…",
	} {
		if got := DSN(in); got != want {
			t.Errorf("DSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestArgs(t *testing.T) {
	in := []string{"--db", "postgres://svc:pw@h/db?password=pw", "--db=postgresql://svc:pw@h/db", "-out=reports", "--from", "2026-11-01", "x=postgres://a:pw@h/d"}
	keep := slices.Clone(in)
	got := Args(in)
	want := []string{"--db", "postgres://svc@h/db", "--db=postgresql://svc@h/db", "-out=reports", "--from", "2026-11-01", "x=postgres://a@h/d"}
	if !slices.Equal(got, want) || !slices.Equal(in, keep) {
		t.Errorf("Args = %q, want %q (and the input unchanged)", got, want)
	}
	if strings.Contains(strings.Join(got, " "), "pw") {
		t.Errorf("Args left a password: %q", got)
	}
}
