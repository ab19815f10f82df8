package budget

// This file bounds a workbook read back (an xlsx is a zip): its size, its
// directory and what it unzips to, checked from the zip's directory before
// a part is unzipped. The sizes a directory declares hold: archive/zip
// fails a part that unzips to more.

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
)

// The budgets of a workbook read back (reconcile exceptions import): its
// file, its directory, and its parts once unzipped. Worksheets and the
// shared strings larger than WorkbookPart are unzipped to temporary files
// by excelize (its Options.UnzipXMLSizeLimit), not into memory; every other
// part is read into memory, so those are held to WorkbookParts together.
const (
	WorkbookFile      = 512 << 20 // a month of a million calls exports about 300 MB
	WorkbookDirectory = 16 << 20
	WorkbookEntries   = 10000
	WorkbookUnzipped  = 4 << 30 // the parts together: excelize's Options.UnzipSizeLimit
	WorkbookPart      = 16 << 20
	WorkbookParts     = 64 << 20
)

// Workbook checks a workbook read back against its budgets before it is
// opened: a regular file of at most WorkbookFile bytes, a zip whose
// directory (at most WorkbookDirectory bytes, WorkbookEntries parts) says
// its parts unzip to at most WorkbookUnzipped bytes, those held in memory
// (all but worksheets and shared strings, WorkbookPart each and
// WorkbookParts together) included. what names the file in messages ("a
// reviewed workbook").
func Workbook(path, what string) error {
	if _, err := Regular(path, WorkbookFile, what); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	refuse := func(format string, a ...any) error {
		return &Error{Input: path, Reason: fmt.Sprintf(format, a...) + ": not " + what + " (an xlsx file)"}
	}
	if err := zipDirectory(f, st.Size(), refuse); err != nil {
		return err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return refuse("not a zip (%v)", err)
	}
	var all, held uint64
	for _, p := range zr.File {
		size := p.UncompressedSize64
		all += size
		if all > WorkbookUnzipped {
			return refuse("its parts unzip to more than %s", Size(WorkbookUnzipped))
		}
		name := strings.ToLower(p.Name)
		if strings.HasPrefix(name, "xl/worksheets/sheet") || name == "xl/sharedstrings.xml" {
			continue // unzipped to a temporary file past WorkbookPart (as excelize tells them)
		}
		if held += size; size > WorkbookPart || held > WorkbookParts {
			return refuse("its part %.60q unzips to %s (other parts than sheets: at most %s each, %s together)",
				p.Name, Size(int64(size)), Size(WorkbookPart), Size(WorkbookParts))
		}
	}
	return nil
}

// zipDirectory checks the zip's end record before archive/zip reads its
// directory (which it holds in memory, one entry a part): not zip64 (no
// workbook of this size needs it), at most WorkbookEntries parts in a
// directory of at most WorkbookDirectory bytes.
func zipDirectory(r io.ReaderAt, size int64, refuse func(string, ...any) error) error {
	const endLen, maxComment = 22, 65535
	tail := make([]byte, min(size, endLen+maxComment))
	if _, err := r.ReadAt(tail, size-int64(len(tail))); err != nil {
		return err
	}
	i := strings.LastIndex(string(tail), "PK\x05\x06")
	if i < 0 || len(tail)-i < endLen {
		return refuse("no zip directory")
	}
	end := tail[i:]
	entries := binary.LittleEndian.Uint16(end[10:])
	dirSize := binary.LittleEndian.Uint32(end[12:])
	switch {
	case entries == 0xffff || dirSize == 0xffffffff:
		return refuse("a zip64 directory")
	case int(entries) > WorkbookEntries:
		return refuse("%d parts, more than %d", entries, WorkbookEntries)
	case int64(dirSize) > WorkbookDirectory:
		return refuse("a zip directory of %s, more than %s", Size(int64(dirSize)), Size(WorkbookDirectory))
	}
	return nil
}
