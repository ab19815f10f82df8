package export

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
)

// output is a file written under a temporary name in its directory and
// renamed on commit, so a final name never holds a half-written file.
type output struct {
	f     *os.File
	final string
}

func create(dir, name string) (*output, error) {
	f, err := os.CreateTemp(dir, "."+name+".*.partial")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Join(dir, name), err)
	}
	return &output{f: f, final: filepath.Join(dir, name)}, nil
}

func (o *output) commit() (string, error) {
	if err := o.f.Close(); err != nil {
		os.Remove(o.f.Name())
		return "", fmt.Errorf("write %s: %w", o.final, err)
	}
	if err := os.Chmod(o.f.Name(), 0o644); err != nil {
		os.Remove(o.f.Name())
		return "", fmt.Errorf("write %s: %w", o.final, err)
	}
	if err := os.Rename(o.f.Name(), o.final); err != nil {
		os.Remove(o.f.Name())
		return "", fmt.Errorf("write %s: %w", o.final, err)
	}
	return o.final, nil
}

func (o *output) discard() {
	o.f.Close()
	os.Remove(o.f.Name())
}

// csvFile streams rows to one CSV file (RFC 4180; CRLF unless Options.LF).
type csvFile struct {
	name string
	cw   *csv.Writer
	rec  []string
}

// openCSV creates a CSV file of the writer and writes its header.
func (w *Writer) openCSV(name string, header []string) (*csvFile, error) {
	out, err := create(w.o.Dir, name)
	if err != nil {
		return nil, err
	}
	w.outs = append(w.outs, out)
	if w.o.BOM {
		if _, err := out.f.WriteString("\uFEFF"); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	cf := &csvFile{name: name, cw: csv.NewWriter(out.f)}
	cf.cw.UseCRLF = !w.o.LF
	if err := cf.cw.Write(header); err != nil {
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	return cf, nil
}

// add writes one row of a table.
func (cf *csvFile) add(cols []Column, cells []string) error {
	if cf.rec == nil {
		cf.rec = make([]string, len(cols))
	}
	for i, c := range cols {
		cf.rec[i] = ""
		if i < len(cells) {
			cf.rec[i] = csvText(c.Kind, cells[i])
		}
	}
	return cf.cw.Write(cf.rec)
}

func (cf *csvFile) close() error {
	cf.cw.Flush()
	if err := cf.cw.Error(); err != nil {
		return fmt.Errorf("write %s: %w", cf.name, err)
	}
	return nil
}
