package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// TestDialectsHaveTheSameMigrations: each migration is written once per
// dialect, under the same name, so that a database records the same names
// whichever engine it is on.
func TestDialectsHaveTheSameMigrations(t *testing.T) {
	lite, err1 := migrationNames(sqliteDialect{})
	pg, err2 := migrationNames(postgresDialect{})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if len(lite) == 0 || !slices.Equal(lite, pg) {
		t.Fatalf("migrations: sqlite %v, postgres %v; want the same names", lite, pg)
	}
}

// TestDialectsEndWithTheSameSchema: a new SQLite database and a new
// PostgreSQL database have the same tables, with the same columns (name,
// type, NOT NULL, in order), primary and unique keys and indexes (name,
// columns, partial or not); PostgreSQL's text columns sort by bytes, as
// SQLite's do.
func TestDialectsEndWithTheSameSchema(t *testing.T) {
	ctx := context.Background()
	pgURL := pgtest.NewDatabase(t)
	lite := openTest(t)
	pg, err := Open(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	want, err := sqliteSchema(ctx, lite)
	if err != nil {
		t.Fatal(err)
	}
	got, err := postgresSchema(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 20 || want["calls"] == nil || len(want["records"].cols) < 10 {
		t.Fatalf("SQLite schema read as %d tables: the test reads the catalog wrong", len(want))
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if got[name] == nil {
			t.Errorf("table %s: missing on PostgreSQL", name)
			continue
		}
		if w, g := want[name].String(), got[name].String(); w != g {
			t.Errorf("table %s:\nsqlite   %s\npostgres %s", name, w, g)
		}
	}
	for name := range got {
		if want[name] == nil {
			t.Errorf("table %s: only on PostgreSQL", name)
		}
	}
}

// tableShape is what TestDialectsEndWithTheSameSchema compares of a table.
type tableShape struct {
	cols    []string // name type [not null]
	keys    []string // primary key, unique constraints: their columns
	indexes []string // name (columns) [unique] [partial]
}

func (s *tableShape) String() string {
	slices.Sort(s.keys)
	slices.Sort(s.indexes)
	return fmt.Sprintf("columns %s; keys %s; indexes %s", strings.Join(s.cols, ", "),
		strings.Join(s.keys, " "), strings.Join(s.indexes, ", "))
}

func column(name, typ string, notNull bool) string {
	if notNull {
		return name + " " + typ + " not null"
	}
	return name + " " + typ
}

func index(name, cols string, unique, partial bool) string {
	s := name + " (" + cols + ")"
	if unique {
		s += " unique"
	}
	if partial {
		s += " partial"
	}
	return s
}

// queryEach runs q and calls fn with each row's scanned values.
func queryEach(ctx context.Context, db *DB, q string, dest []any, fn func() error, args ...any) error {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := fn(); err != nil {
			return err
		}
	}
	return rows.Err()
}

// storedAs are the SQLite columns declared of one type that hold values
// of another: calls.line_hash, declared TEXT, holds BLOBs since 0150
// (which says why it was not declared again; TestUpgradeStoresLineHashesAsBytes
// reads their type).
var storedAs = map[string]string{"calls.line_hash": "bytes"}

func sqliteSchema(ctx context.Context, db *DB) (map[string]*tableShape, error) {
	out := map[string]*tableShape{}
	var table string
	err := queryEach(ctx, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
		[]any{&table}, func() error { out[table] = &tableShape{}; return nil })
	if err != nil {
		return nil, err
	}
	for table, s := range out {
		var name, typ string
		var notNull, pk int
		pks := map[int]string{}
		if err := queryEach(ctx, db, `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`,
			[]any{&name, &typ, &notNull, &pk}, func() error {
				types := map[string]string{"INTEGER": "integer", "TEXT": "text", "BLOB": "bytes"}
				// A primary key's columns are NOT NULL (an INTEGER PRIMARY KEY is the rowid).
				s.cols = append(s.cols, column(name, cmp.Or(storedAs[table+"."+name], types[strings.ToUpper(typ)], typ),
					notNull == 1 || pk > 0))
				if pk > 0 {
					pks[pk] = name
				}
				return nil
			}, table); err != nil {
			return nil, err
		}
		if len(pks) > 0 {
			var key []string
			for _, i := range slices.Sorted(maps.Keys(pks)) {
				key = append(key, pks[i])
			}
			s.keys = append(s.keys, "("+strings.Join(key, ", ")+")")
		}
		var idx, origin string
		var unique, partial int
		var list [][4]any
		if err := queryEach(ctx, db, `SELECT name, "unique", origin, partial FROM pragma_index_list(?)`,
			[]any{&idx, &unique, &origin, &partial}, func() error {
				list = append(list, [4]any{idx, unique == 1, origin, partial == 1})
				return nil
			}, table); err != nil {
			return nil, err
		}
		for _, l := range list {
			var col string
			var cols []string
			if err := queryEach(ctx, db, `SELECT name FROM pragma_index_info(?) ORDER BY seqno`, []any{&col},
				func() error { cols = append(cols, col); return nil }, l[0]); err != nil {
				return nil, err
			}
			switch l[2] {
			case "c":
				s.indexes = append(s.indexes, index(l[0].(string), strings.Join(cols, ", "), l[1].(bool), l[3].(bool)))
			case "u":
				s.keys = append(s.keys, "unique("+strings.Join(cols, ", ")+")")
			}
		}
	}
	return out, nil
}

func postgresSchema(ctx context.Context, db *DB) (map[string]*tableShape, error) {
	out := map[string]*tableShape{}
	get := func(t string) *tableShape {
		if out[t] == nil {
			out[t] = &tableShape{}
		}
		return out[t]
	}
	var table, name, typ, nullable string
	var collation sql.NullString
	err := queryEach(ctx, db, `SELECT table_name, column_name, data_type, is_nullable, collation_name
		FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
		[]any{&table, &name, &typ, &nullable, &collation}, func() error {
			types := map[string]string{"bigint": "integer", "text": "text", "bytea": "bytes"}
			if typ == "text" && collation.String != "C" && table != "schema_migrations" {
				typ = "text collate " + cmp.Or(collation.String, "default") // not byte order: shown as a difference
			}
			get(table).cols = append(get(table).cols, column(name, cmp.Or(types[typ], typ), nullable == "NO"))
			return nil
		})
	if err != nil {
		return nil, err
	}
	// Keys and indexes, each with its columns in order.
	var kind, cols string
	var unique, partial bool
	return out, queryEach(ctx, db, `SELECT t.relname, i.relname, COALESCE(c.contype, ''), x.indisunique, x.indpred IS NOT NULL,
			(SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
				JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum)
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
		JOIN pg_namespace n ON n.oid = t.relnamespace LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid
			AND c.conrelid = x.indrelid AND c.contype IN ('p', 'u')
		WHERE n.nspname = current_schema()`,
		[]any{&table, &name, &kind, &unique, &partial, &cols}, func() error {
			switch kind {
			case "p":
				get(table).keys = append(get(table).keys, "("+cols+")")
			case "u":
				get(table).keys = append(get(table).keys, "unique("+cols+")")
			default:
				get(table).indexes = append(get(table).indexes, index(name, cols, unique, partial))
			}
			return nil
		})
}
