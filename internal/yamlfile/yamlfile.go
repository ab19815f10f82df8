// Package yamlfile reads the settings files people write by hand
// (schedules.yaml, rates.yaml) strictly: a file is a YAML document of
// mappings whose keys are known, none given twice, and every mistake is an
// *Error naming the file and the line at fault.
package yamlfile

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/svcrecon/svcrecon/internal/budget"
)

// Error is a mistake in a settings file, at a line (0: the file as a
// whole).
type Error struct {
	File   string
	Line   int
	Reason string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
}

// Read reads the settings file at path within its budgets
// (budget.SettingsFile in all, budget.SettingsLine a line): a file that is
// not a regular file or goes beyond them is an *Error before it is parsed.
// what names the file in those errors ("a schedules file"), and in the
// error of a file that cannot be read.
func Read(path, what string) ([]byte, error) {
	data, err := budget.ReadFile(path, budget.SettingsFile, what)
	var be *budget.Error
	if errors.As(err, &be) {
		return nil, &Error{File: path, Reason: be.Reason}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if n := budget.LongLine(data, budget.SettingsLine); n > 0 {
		return nil, &Error{File: path, Line: n, Reason: "line longer than " + budget.Size(budget.SettingsLine) +
			", the longest " + what + "'s line may be"}
	}
	return data, nil
}

// Reader reads one file, named Name in its errors.
type Reader struct{ Name string }

// Errf is an *Error at line.
func (r Reader) Errf(line int, format string, args ...any) error {
	return &Error{File: r.Name, Line: line, Reason: fmt.Sprintf(format, args...)}
}

// Root parses data and returns its top node; an empty file is an *Error
// that says what it should hold (want, e.g. "a jobs: mapping").
func (r Reader) Root(data []byte, want string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, r.syntax(err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, r.Errf(1, "empty file: want %s", want)
	}
	return doc.Content[0], nil
}

var lineRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// syntax turns a YAML syntax error ("yaml: line 3: …") into an *Error.
func (r Reader) syntax(err error) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	line := 1
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
		}
		msg = msg[len(m[0]):]
	}
	return r.Errf(line, "%s", msg)
}

// Mapping checks that n is a mapping whose keys are plain names, none
// twice, each one of allowed (none given: any), and returns its key and
// value nodes in order.
func (r Reader) Mapping(n *yaml.Node, what string, allowed ...string) ([][2]*yaml.Node, error) {
	n = Deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, r.Errf(n.Line, "%s: want a mapping, got %s", what, KindName(n))
	}
	seen := map[string]int{}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], Deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, r.Errf(k.Line, "%s: keys must be plain names", what)
		}
		if prev, dup := seen[k.Value]; dup {
			return nil, r.Errf(k.Line, "%s: %q given twice (first on line %d)", what, k.Value, prev)
		}
		seen[k.Value] = k.Line
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			return nil, r.Errf(k.Line, "%s: unknown key %q (known: %s)", what, k.Value, strings.Join(allowed, ", "))
		}
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out, nil
}

// Deref follows an alias to its anchor.
func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// KindName says what n is, for an error: "a mapping", "a list", the
// quoted scalar, or "nothing".
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "nothing"
}
