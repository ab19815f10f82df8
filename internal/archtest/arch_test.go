package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
