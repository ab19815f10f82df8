package export

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// processStart is when this process started (near enough: when the
// package was initialised). A temporary file of a write older than that
// belongs to a process that is gone: the next write of the same file
// removes it.
var processStart = time.Now()

// output is a file written whole or not at all: under a temporary name in
// its directory (.NAME.<digits>.partial), synced and renamed on commit, so
// a final name never holds a half-written file.
type output struct {
	f     *os.File
	final string
}

// create starts the file name in dir, first removing the leftovers of
// earlier writes of the same file that were killed. The file is created
// with mode 0666 less the process's umask, as the final file will be.
func create(dir, name string, log *slog.Logger) (*output, error) {
	return createMode(dir, name, 0o666, log)
}

// createMode is create with perm (less the umask) as the file's mode.
func createMode(dir, name string, perm fs.FileMode, log *slog.Logger) (*output, error) {
	final := filepath.Join(dir, name)
	removeLeftovers(dir, name, log)
	for range 100 {
		tmp := filepath.Join(dir, "."+name+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+".partial")
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", final, err)
		}
		return &output{f: f, final: final}, nil
	}
	return nil, fmt.Errorf("create %s: no free temporary name", final)
}

// WriteFile writes path whole or not at all, the way every export is
// written: fn writes to a temporary file in the same directory, which is
// synced and renamed to path (leftovers of killed writes of path are
// removed first). perm, less the umask, is the file's mode: 0600 for a
// file only its owner may read. log may be nil.
func WriteFile(path string, perm fs.FileMode, log *slog.Logger, fn func(io.Writer) error) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o, err := createMode(filepath.Dir(path), filepath.Base(path), perm, log)
	if err != nil {
		return err
	}
	if err := fn(o.f); err != nil {
		o.discard()
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = o.commit()
	return err
}

// leftoverName matches the temporary names of a write of name.
func leftoverName(name string) *regexp.Regexp {
	return regexp.MustCompile(`^\.` + regexp.QuoteMeta(name) + `\.[0-9]+\.partial$`)
}

// removeLeftovers removes the temporary files of earlier writes of name in
// dir (killed before they were renamed): regular files of exactly the
// .NAME.<digits>.partial pattern last modified before this process
// started. Files of a write still running in a process started after this
// one are newer and kept. Failures are logged, not returned: the new write
// does not need the old files gone.
func removeLeftovers(dir, name string, log *slog.Logger) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	re := leftoverName(name)
	for _, e := range entries {
		if !e.Type().IsRegular() || !re.MatchString(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(processStart) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Warn("could not remove the leftover of a killed write", "path", p, "err", err)
			continue
		}
		log.Info("removed the leftover of a killed write", "path", p, "bytes", info.Size())
	}
}

// commit syncs the file, gives it no wider a mode than the file it
// replaces, renames it to its final name and syncs the directory.
func (o *output) commit() (string, error) {
	tmp := o.f.Name()
	err := o.f.Sync()
	var info os.FileInfo
	if err == nil {
		info, err = o.f.Stat()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = keepNarrowMode(tmp, info.Mode().Perm(), o.final)
	}
	if err == nil {
		err = os.Rename(tmp, o.final)
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", o.final, err)
	}
	if err := syncDir(filepath.Dir(o.final)); err != nil {
		return "", fmt.Errorf("write %s: sync its directory: %w", o.final, err)
	}
	return o.final, nil
}

// keepNarrowMode narrows the mode of tmp (now mode) to that of the file
// final it replaces, if that one is narrower: a rewrite never widens a
// file's mode (an export made private by chmod 600 stays private).
func keepNarrowMode(tmp string, mode fs.FileMode, final string) error {
	old, err := os.Stat(final)
	if err != nil || !old.Mode().IsRegular() {
		return nil // nothing to keep (a missing file; a rename onto a directory fails anyway)
	}
	if narrow := mode & old.Mode().Perm(); narrow != mode {
		return os.Chmod(tmp, narrow)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func (o *output) discard() {
	o.f.Close()
	os.Remove(o.f.Name())
}

// csvFile streams rows to one CSV file (RFC 4180; CRLF unless Options.LF).
// Text cells are formula-safe unless Options.CSVRaw (see csvText).
type csvFile struct {
	name string
	bw   *bufio.Writer // on the file: writes of csvBuffer bytes
	cw   *csv.Writer
	rec  []string
	raw  bool
}

// csvBuffer is how much of a CSV file is written at a time: encoding/csv
// alone writes 4 KiB, 75,000 system calls for a million statement rows.
const csvBuffer = 256 << 10

// openCSV creates a CSV file of the writer and writes its header.
func (w *Writer) openCSV(name string, header []string) (*csvFile, error) {
	out, err := create(w.o.Dir, name, w.o.Log)
	if err != nil {
		return nil, err
	}
	w.outs = append(w.outs, out)
	if w.o.BOM {
		if _, err := out.f.WriteString("\uFEFF"); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	bw := bufio.NewWriterSize(out.f, csvBuffer)
	cf := &csvFile{name: name, bw: bw, cw: csv.NewWriter(bw), raw: w.o.CSVRaw}
	cf.cw.UseCRLF = !w.o.LF
	h := make([]string, len(header))
	for i, s := range header {
		h[i] = csvText(Text, s, cf.raw)
	}
	if err := cf.cw.Write(h); err != nil {
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	return cf, nil
}

// add writes one row of a table.
func (cf *csvFile) add(cols []Column, cells []string) error {
	if cf.rec == nil {
		cf.rec = make([]string, len(cols))
	}
	cf.record(cols, cells, cf.rec)
	return cf.cw.Write(cf.rec)
}

// record makes a row's CSV record in rec (len(cols) long).
func (cf *csvFile) record(cols []Column, cells []string, rec []string) {
	for i, c := range cols {
		rec[i] = ""
		if i < len(cells) {
			rec[i] = csvText(c.Kind, cells[i], cf.raw)
		}
	}
}

// write writes a batch's records (the file's writer; see pipe).
func (cf *csvFile) write(b *rowBatch) error {
	for _, rec := range b.recs[:b.n] {
		if err := cf.cw.Write(rec); err != nil {
			return fmt.Errorf("write %s: %w", cf.name, err)
		}
	}
	return nil
}

func (cf *csvFile) close() error {
	cf.cw.Flush()
	if err := errors.Join(cf.cw.Error(), cf.bw.Flush()); err != nil {
		return fmt.Errorf("write %s: %w", cf.name, err)
	}
	return nil
}
