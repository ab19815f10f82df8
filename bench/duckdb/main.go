// Command bench-duckdb does the core of svcrecon's import-calls and check
// with DuckDB, on the same files, so that scripts/bench-duckdb.sh can time
// svcrecon beside it on the same machine in the same run. It is a module of
// its own (cgo, DuckDB's C++ library): svcrecon itself never imports it.
//
// Untimed, it loads the statement records of a svcrecon SQLite database
// (what `reconcile sync` stored) into a fresh DuckDB database file. Timed,
// it then imports the call log (JSONL) and checks the period, each step's
// results stored in the DuckDB file and checkpointed (written to disk), as
// svcrecon stores its own. It prints each step's wall and CPU time and the
// counts it found, to set beside `reconcile check`'s report.
package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	_ "modernc.org/sqlite"
)

func main() {
	statement := flag.String("sqlite", "", "svcrecon SQLite database holding the synced statement")
	calls := flag.String("calls", "", "the call log (JSONL)")
	from := flag.String("from", "", "first day of the period, YYYY-MM-DD")
	to := flag.String("to", "", "last day of the period, YYYY-MM-DD")
	dir := flag.String("dir", os.TempDir(), "where the DuckDB database file is made (and removed)")
	base := flag.String("base", "", "a DuckDB file holding the statement already (made from --sqlite when missing): copied, not loaded again")
	hash := flag.Bool("hash", false, "read the log line by line as text, hashing each line (SHA-256) as svcrecon does, "+
		"and decode it with json_transform, instead of read_json's typed columns")
	threads := flag.Int("threads", 0, "DuckDB's threads (0: its default, one per CPU)")
	flag.BoolVar(&verbose, "v", false, "print each query's wall and CPU time")
	flag.Parse()
	if *statement == "" || *calls == "" || *from == "" || *to == "" {
		fmt.Fprintln(os.Stderr, "usage: bench-duckdb --sqlite DB --calls LOG.jsonl --from DAY --to DAY [--hash] [--dir DIR]")
		os.Exit(2)
	}
	if err := run(*statement, *base, *calls, *from, *to, *dir, *hash, *threads); err != nil {
		fmt.Fprintln(os.Stderr, "bench-duckdb:", err)
		os.Exit(1)
	}
}

// verbose: print each query's times.
var verbose bool

// step is one timed step: its wall and CPU (user + system) time.
type step struct {
	name      string
	wall, cpu time.Duration
}

func cpuTime() time.Duration {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

func run(statement, base, calls, from, to, dir string, hash bool, threads int) error {
	ctx := context.Background()
	path := filepath.Join(dir, fmt.Sprintf("bench-duckdb-%d.duckdb", os.Getpid()))
	defer os.Remove(path)
	defer os.Remove(path + ".wal")
	fresh := true
	if base != "" {
		if b, err := os.ReadFile(base); err == nil {
			if err := os.WriteFile(path, b, 0o600); err != nil {
				return err
			}
			fresh = false
		}
	}
	connector, err := duckdb.NewConnector(path, nil)
	if err != nil {
		return err
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(1)
	if threads > 0 {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("SET threads = %d", threads)); err != nil {
			return err
		}
	}
	if fresh {
		t0 := time.Now()
		n, err := loadStatement(ctx, db, statement)
		if err != nil {
			return fmt.Errorf("load the statement: %w", err)
		}
		fmt.Printf("statement: %d records loaded from %s in %.2f s (untimed)\n", n, statement, time.Since(t0).Seconds())
		if base != "" {
			if err := copyFile(path, base); err != nil {
				return err
			}
		}
	}
	var steps []step
	timed := func(name string, queries []string) error {
		w0, c0 := time.Now(), cpuTime()
		for _, q := range append(queries, "CHECKPOINT") {
			qw, qc := time.Now(), cpuTime()
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w\n%s", name, err, q)
			}
			if verbose {
				fmt.Printf("  %6.2f s wall %6.2f s cpu  %.70s\n", time.Since(qw).Seconds(), (cpuTime() - qc).Seconds(),
					strings.Join(strings.Fields(q), " "))
			}
		}
		steps = append(steps, step{name, time.Since(w0), cpuTime() - c0})
		return nil
	}
	imp := importTyped(calls)
	if hash {
		imp = importHashed(calls)
	}
	if err := timed("import", imp); err != nil {
		return err
	}
	if err := timed("check", checkQueries(from+" 00:00:00", to+" 23:59:59", to)); err != nil {
		return err
	}
	var wall, cpu time.Duration
	for _, s := range steps {
		fmt.Printf("duckdb %-6s wall %6.2f s  cpu %6.2f s\n", s.name, s.wall.Seconds(), s.cpu.Seconds())
		wall, cpu = wall+s.wall, cpu+s.cpu
	}
	fmt.Printf("duckdb import+check wall %6.2f s  cpu %6.2f s\n", wall.Seconds(), cpu.Seconds())
	return report(ctx, db)
}

// recordCols are the columns of svcrecon's records table the check reads.
var recordCols = []string{"kind", "account", "svc_order_id", "txn_date_time", "txn_date", "client_order_id",
	"product_code", "txn_mode", "txn_charged_value", "reversal_svc_order_id", "settlement_svc_order_id"}

// loadStatement copies the records of svcrecon's SQLite database into the
// DuckDB table records (amounts as DECIMAL(18,2)).
func loadStatement(ctx context.Context, db *sql.DB, path string) (int, error) {
	src, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer src.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE records (kind VARCHAR, account VARCHAR, svc_order_id VARCHAR,
		txn_date_time VARCHAR, txn_date VARCHAR, client_order_id VARCHAR, product_code VARCHAR, txn_mode VARCHAR,
		amount VARCHAR, reversal_svc_order_id VARCHAR, settlement_svc_order_id VARCHAR)`); err != nil {
		return 0, err
	}
	rows, err := src.QueryContext(ctx, `SELECT `+strings.Join(recordCols, ", ")+` FROM records`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	err = conn.Raw(func(dc any) error {
		app, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", "records")
		if err != nil {
			return err
		}
		v := make([]string, len(recordCols))
		ptrs := make([]any, len(v))
		for i := range v {
			ptrs[i] = &v[i]
		}
		vals := make([]driver.Value, len(v))
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			for i := range v {
				vals[i] = v[i]
			}
			if err := app.AppendRow(vals...); err != nil {
				return err
			}
			n++
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return app.Close()
	})
	conn.Close()
	if err != nil {
		return n, err
	}
	for _, q := range []string{
		`CREATE TABLE statement AS SELECT * REPLACE (CAST(nullif(amount, '') AS DECIMAL(18,2)) AS amount) FROM records`,
		`DROP TABLE records`, `ALTER TABLE statement RENAME TO records`, `CHECKPOINT`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return n, err
		}
	}
	return n, nil
}

// copyFile copies the DuckDB file src to dst (written to a temp name and
// renamed).
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
