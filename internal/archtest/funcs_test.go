package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a production function may be: one that
// does not fit on a screen does more than one thing.
const maxFuncLines = 80

// testHelpers are the test-helper packages (named like httptest): their
// code serves tests, and the function rule does not apply to them.
var testHelpers = []string{"internal/bulk/bulktest", "cmd/internal/cli/clitest", "internal/store/pgtest"}

func TestNoLongFunctions(t *testing.T) {
	root, pkgs := load(t)
	fset := token.NewFileSet()
	for name, p := range pkgs {
		if isTestHelper(name) {
			continue
		}
		for _, path := range p.files {
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
				if n := end - start + 1; n > maxFuncLines {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s:%d: %s is %d lines, more than %d: split it by what it does", rel, start, fd.Name.Name, n, maxFuncLines)
				}
			}
		}
	}
}

func isTestHelper(pkg string) bool {
	for _, h := range testHelpers {
		if pkg == h || strings.HasPrefix(pkg, h+"/") {
			return true
		}
	}
	return false
}
