package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

// DBError is a failure of the database itself rather than of what was
// asked of it: the connection lost or refused, the server shut down or
// out of room, a time-out it imposed, a disk error. It names the database
// (host:port/name, or the SQLite file; never a password), so that a
// command does not blame its input file or report the work as done.
// DB.Write returns one for such a failure.
type DBError struct {
	DB  string // where: host:port/database, or the SQLite file
	Err error
}

func (e *DBError) Error() string { return "database " + e.DB + " failed: " + failureReason(e.Err) }

func (e *DBError) Unwrap() error { return e.Err }

// failure returns err as a *DBError when the dialect says the database
// failed (and the caller did not cancel), else err as it is.
func (db *DB) failure(ctx context.Context, err error) error {
	var de *DBError
	if err == nil || ctx.Err() != nil || errors.As(err, &de) || !db.dialect.failed(err) {
		return err
	}
	return &DBError{DB: db.where, Err: err}
}

// connectionLost reports whether err says the connection to the database
// broke (either engine's driver).
func connectionLost(err error) bool {
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne)
}

// failureReason is err in a few words: the server's message and SQLSTATE,
// or that the connection failed, without the statement or the URL.
func failureReason(err error) string {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	switch {
	case errors.As(err, &pe):
		return fmt.Sprintf("%s (SQLSTATE %s)", pe.Message, pe.Code)
	case errors.As(err, &ce):
		return "cannot connect (" + pgReason(err).Error() + ")"
	case connectionLost(err):
		return fmt.Sprintf("the connection was lost (%v)", innermost(err))
	}
	return err.Error()
}

// innermost is the last error of err's chain of single wraps.
func innermost(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}
