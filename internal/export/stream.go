package export

import (
	"bytes"
	"os"
	"reflect"
	"unsafe"

	"github.com/xuri/excelize/v2"
)

// Two costs of excelize's StreamWriter (v2.11) that grow with a sheet's
// size and that its API gives no way to avoid; both are undone here by
// setting one of its unexported fields, checked by type, and both
// functions report whether they could (TestStreamInternals fails when an
// upgrade of excelize moves the fields; the export then still writes the
// same workbook, only slower and larger in memory).
//
//   - SetRow looks up every cell's default style among the sheet's
//     column definitions (prepareCellStyle: a linear scan of <cols>, one
//     entry per column whose width was set), although every cell the
//     export writes has a style of its own: for the Statement sheet's 35
//     columns, 1,225 comparisons a row, a third of SetRow's time. Once the
//     header row is written, the <cols> element is in the stream and the
//     worksheet's copy of it is not read again but by that scan
//     (skipColumnScan).
//   - A sheet's rows are gathered in a buffer that is written to a
//     temporary file each time it passes 16 MiB; after Flush the buffer is
//     emptied but kept (its 16 to 32 MiB) until the workbook is written.
//     A month of ten million rows has ten or more such sheets
//     (releaseStream).

// field is the named field of the struct v (addressable), exported or
// not, as a value that can be set; ok is false when v has no such field.
func field(v reflect.Value, name string) (f reflect.Value, ok bool) {
	if v.Kind() != reflect.Struct || !v.CanAddr() {
		return reflect.Value{}, false
	}
	f = v.FieldByName(name)
	if !f.IsValid() {
		return reflect.Value{}, false
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), true
}

// skipColumnScan empties the column definitions of sw's worksheet (after
// its first row, which wrote them), so that SetRow no longer scans them
// for each cell. It reports whether it could.
func skipColumnScan(sw *excelize.StreamWriter) bool {
	ws, ok := field(reflect.ValueOf(sw).Elem(), "worksheet")
	if !ok || ws.Kind() != reflect.Pointer || ws.IsNil() {
		return false
	}
	cols, ok := field(ws.Elem(), "Cols")
	if !ok || cols.Kind() != reflect.Pointer {
		return false
	}
	cols.SetZero()
	return true
}

// releaseStream drops the buffer of a flushed StreamWriter whose rows
// are in its temporary file (a sheet small enough to stay in the buffer
// keeps it: that is where its rows are). It reports whether it dropped
// it.
func releaseStream(sw *excelize.StreamWriter) bool {
	raw, ok := field(reflect.ValueOf(sw).Elem(), "rawData")
	if !ok {
		return false
	}
	tmp, ok := field(raw, "tmp")
	if !ok || tmp.Type() != reflect.TypeFor[*os.File]() || tmp.IsNil() {
		return false
	}
	buf, ok := field(raw, "buf")
	if !ok || buf.Type() != reflect.TypeFor[bytes.Buffer]() || buf.Addr().Interface().(*bytes.Buffer).Len() != 0 {
		return false
	}
	buf.SetZero()
	return true
}
