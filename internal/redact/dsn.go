package redact

import (
	"net/url"
	"strings"
)

// DSN returns a database address as it may be shown: a SQLite path as it
// is; a PostgreSQL URL (postgres://, postgresql://) without its password
// and without its query, which may carry one too (password=, or an
// sslpassword); "postgres://…" for one that does not parse.
func DSN(dsn string) string {
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	u.RawQuery, u.Fragment, u.ForceQuery = "", "", false
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

// Args returns a command line as it may be shown: every argument that is
// a database address, alone (--db URL) or after an = (--db=URL), as
// DSN shows it. args is not changed.
func Args(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && DSN(v) != v {
			out[i] = k + "=" + DSN(v)
		} else {
			out[i] = DSN(a)
		}
	}
	return out
}
