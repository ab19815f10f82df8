package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
)

// resultPaths are the files a run's results are written to: the CSV
// (--out, or <input>.results.csv) and, with --xlsx, the workbook beside it.
func resultPaths(run *bulk.Run) []string {
	out := run.Settings.Out
	if out == "" {
		out = bulk.DefaultResultsPath(run.InputPath)
	}
	paths := []string{out}
	if run.Settings.XLSX {
		paths = append(paths, bulk.XLSXPath(out))
	}
	return paths
}

// checkOutputs refuses, before anything is sent, result files that would
// overwrite the input or each other (--out r.xlsx --xlsx), or that cannot
// be written: a directory in the way, a directory that is not writable or
// cannot be created. One line, exit 2; nothing is created.
func checkOutputs(run *bulk.Run) error {
	paths := resultPaths(run)
	input := filepath.Clean(run.InputPath)
	for i, p := range paths {
		p = filepath.Clean(p)
		if samePath(p, input) {
			return cli.Usagef("results %s would overwrite the input %s: choose another --out", p, run.InputPath)
		}
		for _, q := range paths[:i] {
			if samePath(p, filepath.Clean(q)) {
				return cli.Usagef("the results CSV and workbook would both be written to %s: give --out a .csv name, or leave out --xlsx", p)
			}
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return cli.Usagef("results %s: is a directory: give --out a file name", p)
		}
		if err := writableDir(filepath.Dir(p)); err != nil {
			return cli.Usagef("results %s: %v", p, err)
		}
	}
	return nil
}

// checkOwnResults refuses, unless force, to write over a results file that
// exists and is not the run's own: owned are the files the run has written
// (none for a new run; for a continued one, its results before a new --out).
// Such a file is another run's (of another database, or a run the
// database no longer has) or someone's own: overwriting it would lose it,
// and leave a workbook beside it that describes another run. One line, exit
// 2, before anything is sent.
func checkOwnResults(run *bulk.Run, owned []string, force bool) error {
	if force {
		return nil
	}
	for _, p := range resultPaths(run) {
		if slices.ContainsFunc(owned, func(o string) bool { return samePath(filepath.Clean(o), filepath.Clean(p)) }) {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return cli.Usagef("results %s exist and are not run %s's (another run wrote them, perhaps with another database): "+
				"give --out another file, move them away, or add --force to overwrite them", p, run.ID)
		}
	}
	return nil
}

// samePath reports whether a and b (absolute, clean) name one file: the
// same path, or (when both exist) the same file under two names.
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// writableDir checks that files can be created in dir: it exists and a
// probe file can be created and removed in it, or it does not exist and
// the nearest existing directory above it is writable (the writer creates
// it). Nothing is left behind.
func writableDir(dir string) error {
	probe := dir
	for {
		fi, err := os.Stat(probe)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a directory", probe)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("output directory: %w", err)
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return fmt.Errorf("output directory %s cannot be created", dir)
		}
		probe = parent
	}
	f, err := os.CreateTemp(probe, ".bulkrun-probe-*")
	if err != nil {
		if probe != dir {
			return fmt.Errorf("output directory %s cannot be created: %s is not writable", dir, probe)
		}
		return fmt.Errorf("output directory %s is not writable", dir)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
