package main

import (
	"bufio"
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// exampleLine is an example command line of a help text or the README: an
// optional VAR=VALUE prefix, then bulkrun and its arguments, then an
// optional # comment.
var exampleLine = regexp.MustCompile(`^((?:[A-Z_]+=(?:\$\([^)]*\)|\S+) )*)bulkrun( .*)?$`)

// examplesIn returns the example commands of text: the lines that are one.
func examplesIn(text string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if i := strings.Index(l, " #"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		if exampleLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// helpExamples are the examples of bulkrun -h and of each subcommand's -h
// (but callback's own, whose examples are shell pipelines), and of the
// README's bulkrun section.
func helpExamples(t *testing.T) []string {
	t.Helper()
	help := func(args ...string) string {
		var out, errOut bytes.Buffer
		if code := cli.Exit(run(context.Background(), args, &out, &errOut), &errOut); code != 0 {
			t.Fatalf("bulkrun %v: exit %d\n%s", args, code, errOut.String())
		}
		return out.String() + errOut.String()
	}
	var all []string
	all = append(all, examplesIn(help("-h"))...)
	for _, c := range commands() {
		if c.Name != "callback" {
			all = append(all, examplesIn(help(c.Name, "-h"))...)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	if i := strings.Index(section, "## Bulk verification files"); i >= 0 {
		section = section[i:]
		if j := strings.Index(section[3:], "\n## "); j >= 0 {
			section = section[:j+3]
		}
	}
	readmeExamples := examplesIn(section)
	if len(readmeExamples) < 5 {
		t.Errorf("only %d examples found in the README's bulkrun section", len(readmeExamples))
	}
	return append(all, readmeExamples...)
}

// exampleFiles are the files the examples name, written in their
// directory: inputs of each operation they use, a callback key and values.
func exampleFiles(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"pans.csv":     "pan\nABCDE1234F\nABCDE1235G\n",
		"seed.csv":     "pan\nABCDE2234F\nABCDE2235G\n",
		"cases.csv":    "name,fatherName,searchType,address,latitude,longitude\nACME LTD,,Entity,1 Main Road,12.97,77.59\nRAVI KUMAR,SURESH KUMAR,Individual,2 Park Street,12.97,77.59\n",
		"cins.csv":     "companyIdentityNumber,latitude,longitude\nU72900KA2000PTC012345,12.97,77.59\n",
		"callback.key": string(cbKey) + "\n",
		"values.txt":   url.QueryEscape(encryptCB(t, []byte(cbPayload), cbKey, cbIV)) + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// Every example of bulkrun's help texts and of the README's bulkrun
// section runs, each in a fresh directory holding the files it names and
// the run 7KQ2M (done) in both databases the examples use, against the
// sandbox: exit 0, so none can rot. A PostgreSQL URL is replaced by a
// database of the test server (those examples are skipped without one).
func TestEveryHelpExampleRuns(t *testing.T) {
	svc := startSandbox(t, sandbox.Faults{})
	examples := helpExamples(t)
	if len(examples) < 15 {
		t.Fatalf("only %d examples found: %q", len(examples), examples)
	}
	seen := map[string]bool{}
	for _, ex := range examples {
		if seen[ex] {
			continue
		}
		seen[ex] = true
		t.Run(ex, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			setEnv(t, svc.Environ())
			t.Setenv("SVC_DB", "")
			exampleFiles(t, dir)
			// The run the examples name, in svcrecon.db and ops.db (the
			// second writes over the results of the first: --force).
			old := newRunID
			newRunID = func() string { return "7KQ2M" }
			for _, db := range []string{"svcrecon.db", "ops.db"} {
				if code, stdout, stderr := runCLIEnv(t, nil, "run", "--op", "verifyPanPlusV2", "--in", "seed.csv", "--db", db,
					"--set", "consent=Y", "--set", "latitude=1", "--set", "longitude=2", "--log-level", "error", "--force"); code != 0 {
					newRunID = old
					t.Fatalf("seed run 7KQ2M in %s: exit %d\n%s%s", db, code, stdout, stderr)
				}
			}
			newRunID = old

			m := exampleLine.FindStringSubmatch(ex)
			for _, kv := range regexp.MustCompile(`[A-Z_]+=(?:\$\([^)]*\)|\S+)`).FindAllString(m[1], -1) {
				k, v, _ := strings.Cut(kv, "=")
				if file, ok := strings.CutPrefix(v, "$(cat "); ok {
					b, err := os.ReadFile(strings.TrimSuffix(file, ")"))
					if err != nil {
						t.Fatal(err)
					}
					v = strings.TrimSpace(string(b))
				}
				t.Setenv(k, v)
			}
			args := strings.Fields(m[2])
			for i, a := range args {
				if strings.HasPrefix(a, "postgres://") {
					args[i] = pgtest.NewDatabase(t) // the test server stands in for the example's
				}
			}
			code, stdout, stderr := runCLIEnv(t, nil, args...)
			if code != 0 {
				t.Errorf("%s: exit %d\n%s%s", ex, code, stdout, stderr)
			}
		})
	}
}
