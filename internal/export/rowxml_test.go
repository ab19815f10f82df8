package export

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// setRowXML is what excelize's StreamWriter.SetRow writes for rows (with
// their heights), from the first row on: the sheet's <sheetData>.
func setRowXML(tb testing.TB, rows [][]any, heights []float64) (string, error) {
	tb.Helper()
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		tb.Fatal(err)
	}
	for i := range 3 { // widths, as the export sets them
		if err := sw.SetColWidth(i+1, i+1, 12); err != nil {
			tb.Fatal(err)
		}
	}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := sw.SetRow(cell, r, excelize.RowOpts{Height: heights[i]}); err != nil {
			return "", err
		}
	}
	if err := sw.Flush(); err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		tb.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		tb.Fatal(err)
	}
	rc, err := zr.Open("xl/worksheets/sheet1.xml")
	if err != nil {
		tb.Fatal(err)
	}
	defer rc.Close()
	x, err := io.ReadAll(rc)
	if err != nil {
		tb.Fatal(err)
	}
	s := string(x)
	i, j := strings.Index(s, "<sheetData>"), strings.Index(s, "</sheetData>")
	if i < 0 || j < i {
		tb.Fatalf("no sheetData in %.300s", s)
	}
	return s[i+len("<sheetData>") : j], nil
}

// ourRowXML is rowXML's writing of the same rows.
func ourRowXML(rows [][]any, heights []float64) (string, error) {
	x := newRowXML(3)
	var b []byte
	for i, r := range rows {
		var err error
		if b, err = x.appendRow(b, i+1, r, heights[i]); err != nil {
			return "", err
		}
	}
	return string(b), nil
}

func cells(vals ...any) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		if v != nil {
			out[i] = &excelize.Cell{StyleID: 1 + i%3, Value: v}
		}
	}
	return out
}

// TestRowXMLAsSetRow writes rows of every value the export writes, and
// text that XML or excelize escapes, and checks that rowXML writes them
// byte for byte as SetRow does.
func TestRowXMLAsSetRow(t *testing.T) {
	ist := func(s string) time.Time {
		v, err := time.ParseInLocation(recon.TimestampLayout, s, recon.IST)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	texts := []string{"plain", "ID0000123", " lead", "trail ", "\ttab", "line\nfeed", "cr\r", "\nnl", `a&b<c>"d'e`,
		"_x0041_", "_x005F_x0041_", "_x005F_", "_x005F_x00", "_xZZZZ_", "a_b", "é café ₹ 4111", "emoji 😀",
		"\x01ctrl", "bad \xff\xfe utf-8", "=HYPERLINK(\"x\")", "'quoted", strings.Repeat("x", 40000),
		strings.Repeat("😀", 20000), strings.Repeat("ab", 16383) + "😀tail", "-2.50"}
	var rows [][]any
	for i := 0; i < len(texts); i += 3 {
		r := cells(texts[i], nil, nil)
		for j := 1; j < 3 && i+j < len(texts); j++ {
			r[j] = &excelize.Cell{StyleID: 2, Value: texts[i+j]}
		}
		rows = append(rows, r)
	}
	rows = append(rows,
		cells(0.0, -1.5, 1e21), cells(123456789.123, 0.1, math.Copysign(0, -1)), cells(math.NaN(), math.Inf(1), math.Inf(-1)),
		cells(int64(0), int64(-5), int64(math.MaxInt64)), cells(true, false, nil),
		cells(ist("2026-11-01 10:00:00"), ist("2026-11-20 23:59:59"), time.Date(2026, 11, 21, 1, 2, 3, 456e6, time.UTC).In(recon.IST)),
		cells(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC), time.Date(1900, 2, 28, 12, 0, 0, 0, recon.IST), time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC)),
		cells(time.Time{}, time.Date(2026, 2, 29, 0, 0, 0, 0, recon.IST), nil),
		[]any{&excelize.Cell{StyleID: 4}, nil, &excelize.Cell{StyleID: 5}},
		[]any{nil, nil, nil},
		cells("no style", nil, nil),
	)
	rows[len(rows)-1][0].(*excelize.Cell).StyleID = 0
	heights := make([]float64, len(rows))
	heights[1], heights[3], heights[5] = 30, 409, 12.75
	want, err := setRowXML(t, rows, heights)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ourRowXML(rows, heights)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("rowXML differs from SetRow at byte %d:\n got %.200q\nwant %.200q", i, got[i:], want[i:])
	}
	// A row too high is refused as SetRow refuses it.
	_, werr := setRowXML(t, rows[:1], []float64{409.5})
	_, gerr := ourRowXML(rows[:1], []float64{409.5})
	if !errors.Is(werr, excelize.ErrMaxRowHeight) || !errors.Is(gerr, excelize.ErrMaxRowHeight) {
		t.Errorf("a row 409.5 pt high: SetRow %v, rowXML %v", werr, gerr)
	}
}

// FuzzRowXML compares rowXML with SetRow on a row of a text, a number, an
// integer, a boolean and a time.
func FuzzRowXML(f *testing.F) {
	f.Add("card 4111 1111", 12.5, int64(7), true, int64(1795000000), 15.0)
	f.Add(" _x0041_ & <é>\n", -0.01, int64(-1), false, int64(-2300000000), 0.0)
	f.Fuzz(func(t *testing.T, s string, fl float64, n int64, b bool, unix int64, h float64) {
		if h < 0 || h > excelize.MaxRowHeight || math.IsNaN(h) {
			h = 0
		}
		tm := time.Unix(unix%(1<<40), 0).In(recon.IST)
		rows := [][]any{cells(s, fl, n), cells(b, tm, s+s)}
		heights := []float64{h, 0}
		want, werr := setRowXML(t, rows, heights)
		got, gerr := ourRowXML(rows, heights)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("SetRow error %v, rowXML error %v", werr, gerr)
		}
		if got != want {
			t.Fatalf("rowXML differs from SetRow:\n got %q\nwant %q", got, want)
		}
	})
}
