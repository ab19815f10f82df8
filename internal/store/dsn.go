package store

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/svcrecon/svcrecon/internal/redact"
)

// IsPostgres reports whether dsn names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// RedactDSN returns dsn as it may be shown: a SQLite path as it is; a
// PostgreSQL URL without its password (and without its query, which may
// carry one too). See redact.DSN.
func RedactDSN(dsn string) string { return redact.DSN(dsn) }

// Missing reports whether dsn names a SQLite file that does not exist,
// which Open would create empty: a command that only reads says so
// instead. A PostgreSQL URL is never missing (Open says whether its
// server answers).
func Missing(dsn string) bool {
	if IsPostgres(dsn) {
		return false
	}
	_, err := os.Stat(dsn)
	return errors.Is(err, fs.ErrNotExist)
}
