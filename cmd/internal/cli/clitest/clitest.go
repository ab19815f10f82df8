// Package clitest finds the example command lines of the commands' help
// texts and of the README, and reads each the way a shell would, so that
// the commands' tests can run every example and none can rot.
//
// It understands the shell that examples use: VAR=value prefixes, single
// and double quotes, $VAR and ${VAR}, unquoted globs, "# comments", one
// "X |" pipe into the command, "> FILE", a trailing "&", eval "$(CMD)" and
// "go run ./cmd/NAME" for the command NAME. Anything else (";", "&&", "2>&1",
// loops) is not a simple command: Parse says so, and a test lists such lines
// with the reason they are not run. Setenv and SandboxEnv give an example
// the environment it expects.
package clitest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// Setenv sets each VAR=value of env for the rest of the test.
func Setenv(tb testing.TB, env []string) {
	tb.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		tb.Setenv(k, v)
	}
}

// SandboxEnv returns the settings that point a command at srv (as
// svcsandbox prints them), with SVC_DB empty: the commands' default.
func SandboxEnv(srv *sandbox.Server) []string {
	cr := srv.Credentials()
	return []string{"SVC_BASE_URL=" + srv.Config().BaseURL, "SVC_CLIENT_ID=" + cr.ClientID, "SVC_CLIENT_SECRET=" + cr.ClientSecret,
		"SVC_OUTLET_ID=" + cr.OutletID, "SVC_ENDPOINT_IP=" + cr.EndpointIP, "SVC_ACCOUNT=" + cr.Account, "SVC_DB="}
}

// HelpExamples returns the example lines of a usage text: the indented
// lines after its "Examples:" line, trimmed. Comment lines (# …) and blank
// lines are left out; prose about the examples is not indented.
func HelpExamples(usage string) []string {
	_, block, ok := strings.Cut(usage, "\nExamples:\n")
	if !ok {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(block))
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, " ") {
			continue
		}
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// WithoutComment is an example line without its trailing # comment
// (from the first " #"), trimmed: the line as a test lists it.
func WithoutComment(line string) string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// Block is a fenced code block of a Markdown file.
type Block struct {
	Lang    string   // the info string: "sh", "json", "" …
	Section string   // the "## " heading it is under
	Line    int      // line number of its first line (after the fence)
	Lines   []string // its lines, as written
}

// Commands returns the block's lines that are commands: trimmed, without
// blank lines and comment lines.
func (b Block) Commands() []string {
	var out []string
	for _, l := range b.Lines {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// Blocks returns the fenced code blocks of a Markdown text.
func Blocks(markdown string) []Block {
	var (
		out     []Block
		section string
		cur     *Block
	)
	for i, l := range strings.Split(markdown, "\n") {
		switch {
		case cur != nil && strings.HasPrefix(l, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.Lines = append(cur.Lines, l)
		case strings.HasPrefix(l, "```"):
			cur = &Block{Lang: strings.TrimSpace(strings.TrimPrefix(l, "```")), Section: section, Line: i + 2}
		case strings.HasPrefix(l, "## "):
			section = strings.TrimPrefix(l, "## ")
		}
	}
	return out
}

// Command is one example line, read as the shell would.
type Command struct {
	Line       string
	Env        []string // VAR=value prefixes
	Prog       string   // the command: reconcile, billersync, go, zcat …; NAME for go run ./cmd/NAME
	Args       []string
	Input      *Command // the command piped into this one (X | …)
	Stdout     string   // > FILE
	Background bool     // a trailing &
	Eval       bool     // eval "$(…)": the shell runs what the command prints
}

// ErrNotSimple is wrapped by Parse's error for a line that is no simple
// command (see the package comment).
var ErrNotSimple = fmt.Errorf("not a simple command")

var evalLine = regexp.MustCompile(`^eval "\$\(([^"]*)\)"\s*(?:#.*)?$`)

// Parse reads an example line. getenv expands $VAR; relative globs are
// expanded in the current directory, as the shell would (a glob that
// matches nothing stays as written).
func Parse(line string, getenv func(string) string) (*Command, error) {
	if m := evalLine.FindStringSubmatch(line); m != nil {
		c, err := Parse(m[1], getenv)
		if err != nil {
			return nil, err
		}
		c.Line, c.Eval = line, true
		return c, nil
	}
	toks, err := split(line, getenv)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", line, err)
	}
	c := &Command{Line: line}
	var words []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case !t.op:
			words = append(words, t.s)
		case t.s == "|" && c.Input == nil && len(words) > 0 && c.Stdout == "":
			c.Input = &Command{Prog: words[0], Args: words[1:]}
			words = nil
		case t.s == ">" && c.Stdout == "" && i+1 < len(toks) && !toks[i+1].op:
			c.Stdout = toks[i+1].s
			i++
		case t.s == "&" && i == len(toks)-1:
			c.Background = true
		default:
			return nil, fmt.Errorf("%q: %w (%s)", line, ErrNotSimple, t.s)
		}
	}
	for len(words) > 0 && isAssignment(words[0]) {
		c.Env = append(c.Env, words[0])
		words = words[1:]
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%q: %w (no command)", line, ErrNotSimple)
	}
	c.Prog, c.Args = words[0], words[1:]
	if c.Prog == "go" && len(c.Args) >= 2 && c.Args[0] == "run" && strings.HasPrefix(c.Args[1], "./cmd/") {
		c.Prog, c.Args = strings.TrimPrefix(c.Args[1], "./cmd/"), c.Args[2:]
	}
	return c, nil
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssignment(w string) bool { return assignment.MatchString(w) }

// Rebase moves the absolute paths of the command (arguments, values of
// --flag=value and VAR=value, the > file) under root, so that an example
// naming /var/lib/svcrecon/svcrecon.db works in a test's directory.
func (c *Command) Rebase(root string) {
	move := func(s string) string {
		if k, v, ok := strings.Cut(s, "="); ok && (strings.HasPrefix(k, "-") || isAssignment(s)) {
			return k + "=" + moveAbs(root, v)
		}
		return moveAbs(root, s)
	}
	for i := range c.Args {
		c.Args[i] = move(c.Args[i])
	}
	for i := range c.Env {
		c.Env[i] = move(c.Env[i])
	}
	c.Stdout = moveAbs(root, c.Stdout)
	if c.Input != nil {
		c.Input.Rebase(root)
	}
}

func moveAbs(root, p string) string {
	if strings.HasPrefix(p, "/") {
		return filepath.Join(root, p)
	}
	return p
}

// token is a word or an operator (|, >, &, ;, &&, >> …) of a line.
type token struct {
	s  string
	op bool
}

// split splits a line into words and operators, removing quotes,
// expanding variables and unquoted globs, and dropping a # comment.
func split(line string, getenv func(string) string) ([]token, error) {
	var (
		out    []token
		word   strings.Builder
		inWord bool
		glob   bool // the word has an unquoted glob character
	)
	flush := func() {
		if !inWord {
			return
		}
		w := word.String()
		if matches, _ := filepath.Glob(w); glob && len(matches) > 0 {
			for _, m := range matches {
				out = append(out, token{s: m})
			}
		} else {
			out = append(out, token{s: w})
		}
		word.Reset()
		inWord, glob = false, false
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t':
			flush()
		case r == '#' && !inWord:
			flush()
			return out, nil
		case r == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated '")
			}
			word.WriteString(string(rs[i+1 : j]))
			inWord, i = true, j
		case r == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '$' {
					n, err := expand(rs[j:], getenv, &word)
					if err != nil {
						return nil, err
					}
					j += n - 1
					continue
				}
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune(`"\$`, rs[j+1]) {
					j++
				}
				word.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf(`unterminated "`)
			}
			inWord, i = true, j
		case r == '$':
			n, err := expand(rs[i:], getenv, &word)
			if err != nil {
				return nil, err
			}
			inWord, i = true, i+n-1
		case r == '\\' && i+1 < len(rs):
			word.WriteRune(rs[i+1])
			inWord, i = true, i+1
		case strings.ContainsRune("|&;<>", r):
			flush()
			op := string(r)
			for i+1 < len(rs) && strings.ContainsRune("|&;<>", rs[i+1]) {
				i++
				op += string(rs[i])
			}
			if len(out) > 0 && !out[len(out)-1].op && (op == ">" || op == ">>") && isDigits(out[len(out)-1].s) {
				op = out[len(out)-1].s + op // 2> is one operator
				out = out[:len(out)-1]
			}
			out = append(out, token{s: op, op: true})
		default:
			if strings.ContainsRune("*?[", r) {
				glob = true
			}
			word.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return out, nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

var varName = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// expand writes the value of the variable rs starts with ($NAME or
// ${NAME}) and returns how many runes it took. $! , $? , $( … are not
// simple.
func expand(rs []rune, getenv func(string) string, w *strings.Builder) (int, error) {
	m := varName.FindStringSubmatch(string(rs))
	if m == nil {
		return 0, fmt.Errorf("%w (%s)", ErrNotSimple, string(rs[:min(2, len(rs))]))
	}
	w.WriteString(getenv(m[1] + m[2]))
	return len([]rune(m[0])), nil
}

// JSONLines decodes every line of out (what a command wrote on stderr with
// --log-format json) as one JSON object, failing the test for a line that
// is not one.
func JSONLines(tb testing.TB, out string) []map[string]any {
	tb.Helper()
	var recs []map[string]any
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			tb.Errorf("line %q is not a JSON object: %v", l, err)
			continue
		}
		recs = append(recs, m)
	}
	return recs
}
