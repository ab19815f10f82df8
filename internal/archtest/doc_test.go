package archtest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// docPath is the document the tests keep true.
const docPath = "docs/architecture.md"

// docRow is one row of a table of the document: the packages of its first
// column and the backticked names of its second.
type docRow struct {
	line     int
	packages []string
	names    []string
	text     string // the second column as written
}

// readDoc returns the rows of the document's table under the heading
// that starts with heading.
func readDoc(t *testing.T, root, heading string) []docRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, docPath))
	if err != nil {
		t.Fatal(err)
	}
	var rows []docRow
	in := false
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.HasPrefix(line, "## "+heading)
			continue
		}
		if !in || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 2 || cells[0] == "package" {
			continue
		}
		rows = append(rows, docRow{line: i + 1, packages: ticked(cells[0]), names: ticked(cells[1]), text: cells[1]})
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no table under %q", docPath, heading)
	}
	return rows
}

// ticked returns the `backticked` names of s.
func ticked(s string) []string {
	var out []string
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}

// TestDocumentNamesWhatExists: every package and file the document names
// exists, and every package of the module has its row in both tables.
func TestDocumentNamesWhatExists(t *testing.T) {
	root, pkgs := load(t)
	for _, heading := range []string{"Packages and what each one is for", "What may import what"} {
		listed := map[string]bool{}
		for _, r := range readDoc(t, root, heading) {
			for _, p := range r.packages {
				listed[p] = true
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					t.Errorf("%s:%d: package %s does not exist", docPath, r.line, p)
				}
			}
			if heading == "Packages and what each one is for" {
				checkFiles(t, root, r)
			}
		}
		for p := range pkgs {
			if !listed[p] && p != "." {
				t.Errorf("%s: package %s has no row under %q", docPath, p, heading)
			}
		}
	}
}

// checkFiles checks that each file a row names (a name ending in .go, or a
// glob of files) exists in one of the row's packages, or from the top of
// the module when it is a path.
func checkFiles(t *testing.T, root string, r docRow) {
	t.Helper()
	for _, name := range r.names {
		if !strings.HasSuffix(name, ".go") && !strings.Contains(name, "*.") {
			continue
		}
		dirs := r.packages
		if strings.HasPrefix(name, "cmd/") || strings.HasPrefix(name, "internal/") {
			dirs = []string{"."}
		}
		found := false
		for _, d := range dirs {
			m, _ := filepath.Glob(filepath.Join(root, d, name))
			found = found || len(m) > 0
		}
		if !found {
			t.Errorf("%s:%d: %s names %s, which is not there", docPath, r.line, strings.Join(r.packages, ", "), name)
		}
	}
}

// TestImportsFollowTheDocument: each package imports only the project
// packages its row of "What may import what" allows.
func TestImportsFollowTheDocument(t *testing.T) {
	root, pkgs := load(t)
	allowed := map[string][]string{}
	anything := map[string]bool{}
	for _, r := range readDoc(t, root, "What may import what") {
		for _, p := range r.packages {
			if _, dup := allowed[p]; dup {
				t.Errorf("%s:%d: %s has two rows", docPath, r.line, p)
			}
			allowed[p] = r.names
			anything[p] = strings.TrimSpace(r.text) == "anything"
			for _, im := range r.names {
				if pkgs[im] == nil {
					t.Errorf("%s:%d: %s may import %s, which is no package", docPath, r.line, p, im)
				}
			}
		}
	}
	for name, p := range pkgs {
		ok, listed := allowed[name]
		if !listed || anything[name] {
			continue // TestDocumentNamesWhatExists reports a missing row
		}
		for im := range p.imports {
			if !slices.Contains(ok, im) {
				t.Errorf("%s imports %s, which its row of %s does not allow", name, im, docPath)
			}
		}
	}
}
