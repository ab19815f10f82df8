package yamlfile

import (
	"errors"
	"testing"
)

// TestMistakesNameTheirLine: each mistake of a hand-written file is an
// *Error at the line at fault.
func TestMistakesNameTheirLine(t *testing.T) {
	r := Reader{Name: "x.yaml"}
	for _, c := range []struct {
		name, data, want string
	}{
		{"syntax", "a: 1\nb: [\n", "x.yaml:2: did not find expected node content"},
		{"empty", "", "x.yaml:1: empty file: want a jobs: mapping"},
		{"not a mapping", "- 1\n", "x.yaml:1: top: want a mapping, got a list"},
		{"unknown key", "a: 1\nc: 2\n", `x.yaml:2: top: unknown key "c" (known: a, b)`},
		{"twice", "a: 1\nb: 2\na: 3\n", `x.yaml:3: top: "a" given twice (first on line 1)`},
		{"key not a name", "[a]: 1\n", "x.yaml:1: top: keys must be plain names"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, err := r.Root([]byte(c.data), "a jobs: mapping")
			if err == nil {
				_, err = r.Mapping(root, "top", "a", "b")
			}
			var e *Error
			if !errors.As(err, &e) || err.Error() != c.want {
				t.Errorf("got %v, want *Error %q", err, c.want)
			}
		})
	}
	root, err := r.Root([]byte("base: &b {a: 1}\nuse: *b\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	kvs, err := r.Mapping(root, "top")
	if err != nil || len(kvs) != 2 || kvs[1][1].Kind != Deref(kvs[0][1]).Kind {
		t.Errorf("an alias is followed to its anchor: %v, %v", kvs, err)
	}
}
