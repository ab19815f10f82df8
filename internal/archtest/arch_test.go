package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/svcrecon/svcrecon/"

// pkg is one package of the module: its production files and the project
// packages they import.
type pkg struct {
	files   []string
	imports map[string]bool
}

// load parses every production .go file of the module (imports only, plus
// string literals for the SQL rule).
func load(t *testing.T) (root string, pkgs map[string]*pkg) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pkgs = map[string]*pkg{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root && fileExists(filepath.Join(path, "go.mod")) {
			return filepath.SkipDir // another module (bench/duckdb): not the project's code
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		p := pkgs[rel]
		if p == nil {
			p = &pkg{imports: map[string]bool{}}
			pkgs[rel] = p
		}
		p.files = append(p.files, path)
		for _, im := range f.Imports {
			v, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(v, module) {
				p.imports[strings.TrimPrefix(v, module)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, pkgs
}

// deps returns every project package p imports, directly or not.
func deps(pkgs map[string]*pkg, p string) map[string]bool {
	out := map[string]bool{}
	var walk func(string)
	walk = func(q string) {
		for im := range pkgs[q].imports {
			if !out[im] {
				out[im] = true
				if pkgs[im] != nil {
					walk(im)
				}
			}
		}
	}
	walk(p)
	return out
}

func TestImportRules(t *testing.T) {
	_, pkgs := load(t)
	domain := []string{"internal/statement", "internal/calllog", "internal/ledger", "internal/export", "internal/bulk", "internal/nightly", "internal/sandbox", "internal/svcapi"}
	// forbidden holds directly or not; direct only directly (the store maps
	// the reconciliation's types, so what imports the store reaches ledger's
	// imports too).
	for _, c := range []struct {
		pkg               string
		forbidden, direct []string
		why               string
	}{
		{"internal/export", []string{"internal/sandbox"}, []string{"internal/svcapi"}, "export reads the store only"},
		{"internal/recon", []string{"*"}, nil, "the vocabulary imports no project package"},
		{"internal/redact", []string{"*"}, nil, "the redaction imports no project package"},
		{"internal/store", []string{"internal/statement", "internal/calllog", "internal/export", "internal/bulk", "internal/nightly", "internal/sandbox", "internal/schedule"},
			[]string{"internal/svcapi"}, "store imports only recon and ledger's types"},
		{"internal/schedule", append(domain, "internal/store"), nil, "schedule runs the functions it is handed"},
		{"internal/svcapi", []string{"internal/store", "internal/statement", "internal/calllog", "internal/ledger", "internal/export", "internal/bulk", "internal/sandbox"}, nil, "the client imports no domain package"},
		{"internal/calllog", []string{"internal/statement", "internal/export", "internal/bulk", "internal/nightly", "internal/sandbox", "internal/schedule"},
			[]string{"internal/ledger"}, "call logs are read with svcapi, store, recon, redact, jsonscan and progress only"},
		{"internal/ledger", []string{"internal/calllog", "internal/statement", "internal/export", "internal/bulk", "internal/nightly", "internal/sandbox", "internal/schedule"},
			nil, "the reconciliation reads what the store holds: it neither reads call logs nor syncs"},
	} {
		if pkgs[c.pkg] == nil {
			t.Errorf("%s: no such package", c.pkg)
			continue
		}
		all := deps(pkgs, c.pkg)
		for im := range all {
			if slices.Contains(c.forbidden, "*") || slices.Contains(c.forbidden, im) {
				t.Errorf("%s imports %s (directly or not): %s", c.pkg, im, c.why)
			}
		}
		for im := range pkgs[c.pkg].imports {
			if slices.Contains(c.direct, im) {
				t.Errorf("%s imports %s: %s", c.pkg, im, c.why)
			}
		}
	}
	for name, p := range pkgs {
		if strings.HasPrefix(name, "cmd/") {
			continue
		}
		for im := range p.imports {
			if im == "internal/sandbox" && !strings.HasPrefix(name, "internal/sandbox") {
				t.Errorf("%s imports internal/sandbox: only mains (for --sandbox) and tests may", name)
			}
		}
	}
}

// sqlText matches SQL statements in string literals.
var sqlText = regexp.MustCompile(`(?i)\b(SELECT\s+[\w*(]|INSERT\s+(OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|CREATE\s+(TABLE|INDEX)\b|PRAGMA\s+\w)`)

func TestSQLOnlyInStore(t *testing.T) {
	root, pkgs := load(t)
	fset := token.NewFileSet()
	for name, p := range pkgs {
		if name == "internal/store" {
			continue
		}
		for _, path := range p.files {
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && sqlText.MatchString(lit.Value) {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s:%d: SQL outside internal/store: %.60s", rel, fset.Position(lit.Pos()).Line, lit.Value)
				}
				return true
			})
		}
	}
}

func TestNoProductionFileOver600Lines(t *testing.T) {
	root, pkgs := load(t)
	for _, p := range pkgs {
		for _, path := range p.files {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(b), "\n"); n > 600 {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s has %d lines, more than 600: split it by subject", rel, n)
			}
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
