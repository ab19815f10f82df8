package bulk

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func mustOp(tb testing.TB, name string) *svcapi.Operation {
	tb.Helper()
	op, ok := svcapi.Lookup(name)
	if !ok {
		tb.Fatalf("no operation %s", name)
	}
	return op
}

func build(tb testing.TB, opName, csvText string, sets ...string) ([]Row, error) {
	tb.Helper()
	op := mustOp(tb, opName)
	t, err := ParseTable("in.csv", []byte(csvText))
	if err != nil {
		tb.Fatalf("ParseTable: %v", err)
	}
	s, err := ParseSets(op, sets)
	if err != nil {
		tb.Fatalf("ParseSets(%v): %v", sets, err)
	}
	return Build(op, t, s, "RUN42")
}

func bodyJSON(tb testing.TB, body map[string]any) string {
	tb.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestBuildMapsRows(t *testing.T) {
	tests := []struct {
		name string
		op   string
		csv  string
		sets []string
		want []string // request bodies, JSON with sorted keys
		refs []string
	}{
		{
			name: "plain strings keep leading zeros and long ids",
			op:   svcapi.OpMobileNameLookup,
			csv:  "mobileNumber,latitude,longitude,consent,externalRef\n0098765432,12.97,77.59,Y,12345678901234567890\n",
			want: []string{`{"consent":"Y","externalRef":"12345678901234567890","latitude":"12.97","longitude":"77.59","mobileNumber":"0098765432"}`},
			refs: []string{"12345678901234567890"},
		},
		{
			name: "dotted names nest and integers are numbers",
			op:   svcapi.OpBrandOrder,
			csv: "externalRef,productKey,denomination,sender.name,receiver.name,receiver.contact,receiver.gift_message,latitude,longitude\n" +
				"R1,AMZ,0500,Asha,Ravi,0911,Happy day,1,2\n",
			want: []string{`{"denomination":500,"externalRef":"R1","latitude":"1","longitude":"2","productKey":"AMZ","receiver":{"contact":"0911","gift_message":"Happy day","name":"Ravi"},"sender":{"name":"Asha"}}`},
			refs: []string{"R1"},
		},
		{
			name: "booleans are booleans and conditional fields apply",
			op:   svcapi.OpAddPaymentMethod,
			csv:  "gcId,accountType,upiId,isVerificationOn,externalRef,latitude,longitude\nG1,VPA,a@upi,TRUE,X1,1,2\nG2,VPA,b@upi,false,,,\n",
			want: []string{
				`{"accountType":"VPA","externalRef":"X1","gcId":"G1","isVerificationOn":true,"latitude":"1","longitude":"2","upiId":"a@upi"}`,
				`{"accountType":"VPA","externalRef":"BRUN42000003","gcId":"G2","isVerificationOn":false,"upiId":"b@upi"}`,
			},
			refs: []string{"X1", "BRUN42000003"},
		},
		{
			name: "BOM, CRLF and quoted fields; refs derived from the line",
			op:   svcapi.OpVerifyPanPlusV2,
			csv:  "\uFEFFpan,latitude,longitude,consent\r\n\"ABCDE1234F\",\"12,5\",77,Y\r\nPQRSX0001Z,1,2,Y\r\n",
			want: []string{
				`{"consent":"Y","externalRef":"BRUN42000002","latitude":"12,5","longitude":"77","pan":"ABCDE1234F"}`,
				`{"consent":"Y","externalRef":"BRUN42000003","latitude":"1","longitude":"2","pan":"PQRSX0001Z"}`,
			},
			refs: []string{"BRUN42000002", "BRUN42000003"},
		},
		{
			name: "--set fills empty cells and missing columns; a cell wins over --set",
			op:   svcapi.OpVerifyPanPlusV2,
			csv:  "pan,latitude,externalRef\nABCDE1234F,,R1\nABCDE1234G,13.1,R2\n",
			sets: []string{"latitude=12.9", "longitude=077.5", "consent=Y"},
			want: []string{
				`{"consent":"Y","externalRef":"R1","latitude":"12.9","longitude":"077.5","pan":"ABCDE1234F"}`,
				`{"consent":"Y","externalRef":"R2","latitude":"13.1","longitude":"077.5","pan":"ABCDE1234G"}`,
			},
			refs: []string{"R1", "R2"},
		},
		{
			name: "an alias column is sent under the field's name",
			op:   svcapi.OpNameAbbreviations,
			csv:  "Name,maxLength,externalRef\nRamesh Kumar,8,N1\n",
			want: []string{`{"externalRef":"N1","maxLength":8,"name":"Ramesh Kumar"}`},
			refs: []string{"N1"},
		},
		{
			name: "a quoted field spanning lines keeps its start line",
			op:   svcapi.OpLitigation,
			csv:  "name,searchType,address,latitude,longitude\nACME,Entity,\"1 Road\nPune\",1,2\nBETA,Entity,x,1,2\n",
			want: []string{
				`{"address":"1 Road\nPune","externalRef":"BRUN42000002","latitude":"1","longitude":"2","name":"ACME","searchType":"Entity"}`,
				`{"address":"x","externalRef":"BRUN42000004","latitude":"1","longitude":"2","name":"BETA","searchType":"Entity"}`,
			},
			refs: []string{"BRUN42000002", "BRUN42000004"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := build(t, tt.op, tt.csv, tt.sets...)
			if err != nil {
				var ie *InvalidError
				if errors.As(err, &ie) {
					t.Fatalf("Build: %v\n%s", err, strings.Join(ie.Lines(), "\n"))
				}
				t.Fatalf("Build: %v", err)
			}
			var got, refs []string
			for _, r := range rows {
				got = append(got, bodyJSON(t, r.Body))
				refs = append(refs, r.Ref)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("bodies:\n got %q\nwant %q", got, tt.want)
			}
			if !reflect.DeepEqual(refs, tt.refs) {
				t.Errorf("refs = %q, want %q", refs, tt.refs)
			}
		})
	}
}

func TestBuildListsEveryProblem(t *testing.T) {
	csvText := "pan,latitude,longitude,consent,externalRef,nickname\n" + // line 1: nickname is carried through
		"ABCDE1234F,1,2,Y,R1,x\n" + // 2: fine apart from the header
		",1,2,Y,R2,x\n" + // 3: pan missing
		"ABCDE1234F,1,2,N,R3,x\n" + // 4: consent not Y
		"ABCDE1234F,1,2,Y,R1,x\n" + // 5: duplicate ref
		"ABCDE1234F,1,2,Y,R-6,x\n" + // 6: ref not alphanumeric
		"ABCDE1234F,1,2\n" + // 7: too few columns
		"ABCDE1234F,1,2,Y,R8,x\n" // 8: fine
	_, err := build(t, svcapi.OpVerifyPanPlusV2, csvText)
	var ie *InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("Build = %v, want *InvalidError", err)
	}
	want := []string{
		"in.csv:3: pan: missing mandatory field",
		`in.csv:4: consent: "N" is not one of Y`,
		`in.csv:5: externalRef: "R1" already used on line 2`,
		`in.csv:6: externalRef: "R-6" is not alphanumeric`,
		"in.csv:7: has 3 columns, the header has 6",
	}
	if got := ie.Lines(); !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
}

func TestBuildTypeErrors(t *testing.T) {
	tests := []struct {
		op, csv string
		want    []string
	}{
		{svcapi.OpBrandOrder,
			"externalRef,productKey,denomination,sender.name,receiver.name,receiver.contact,receiver.gift_message,latitude,longitude\nR1,AMZ,5x,A,B,C,D,1,2\n",
			[]string{`in.csv:2: denomination: "5x" is not a whole number`}},
		{svcapi.OpAddPaymentMethod, "gcId,accountType,isVerificationOn\nG1,ACCOUNT,maybe\n",
			[]string{
				`in.csv:2: isVerificationOn: "maybe" is not true or false`,
				"in.csv:2: accountNumber: missing, mandatory when accountType is ACCOUNT",
				"in.csv:2: accountIfsc: missing, mandatory when accountType is ACCOUNT",
				"in.csv:2: beneficiaryName: missing, mandatory when accountType is ACCOUNT",
			}},
		{svcapi.OpFundTransfer, "remitterMobile,beneficiaryId,transferMode,transferAmount,latitude,longitude\n9,B,UPI,-5,1,2\n",
			[]string{`in.csv:2: transferMode: "UPI" is not one of IMPS, NEFT, RTGS`, "in.csv:2: transferAmount: amount -5 must be above zero"}},
		{svcapi.OpVerifyPanPlusV2, "pan,latitude,longitude,consent\nA,1,2,Y\nB,1,\"x\"y,Y\n",
			[]string{`in.csv:3: CSV syntax: extraneous or missing " in quoted-field`}},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			_, err := build(t, tt.op, tt.csv)
			var ie *InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("Build = %v, want *InvalidError", err)
			}
			if got := ie.Lines(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseSets(t *testing.T) {
	op := mustOp(t, svcapi.OpVerifyPanPlusV2)
	if _, err := ParseSets(op, []string{"consent=Y", "latitude=1"}); err != nil {
		t.Errorf("ParseSets(valid) = %v", err)
	}
	for _, bad := range []string{"consent", "nosuch=1", "externalRef=X", "=Y"} {
		if _, err := ParseSets(op, []string{bad}); err == nil {
			t.Errorf("ParseSets(%q) = nil, want an error", bad)
		}
	}
	if _, err := ParseSets(mustOp(t, svcapi.OpBrandOrder), []string{"denomination=ten"}); err == nil {
		t.Error("ParseSets(denomination=ten) = nil, want a type error")
	}
}

func TestDeriveRef(t *testing.T) {
	if got := DeriveRef("7KQ2M", 12, 6); got != "B7KQ2M000012" {
		t.Errorf("DeriveRef = %q", got)
	}
	if !alphanumeric(DeriveRef(NewRunID(), 1234567, 7)) {
		t.Error("derived ref is not alphanumeric")
	}
}

// A mandatory field with no column and no --set is one problem of the
// header, named once, not a problem on every row.
func TestMissingMandatoryColumnReportedOnce(t *testing.T) {
	_, err := build(t, "verifyPanPlusV2", "pan\nABCDE0001F\nABCDE0002F\nABCDE0003F\n", "consent=Y")
	var ie *InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("Build() = %v, want an InvalidError", err)
	}
	got := ie.Lines()
	want := []string{
		"in.csv:1: latitude: mandatory column missing: add a latitude column, or --set latitude=VALUE for every row",
		"in.csv:1: longitude: mandatory column missing: add a longitude column, or --set longitude=VALUE for every row",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Columns that are not fields of the operation are carried through: listed
// by Extra, never in a request body.
func TestBuildLeavesExtraColumnsOutOfTheRequests(t *testing.T) {
	op := mustOp(t, svcapi.OpVerifyPanPlusV2)
	tbl, err := ParseTable("in.csv", []byte("myRef,pan,latitude,longitude,consent,branch.code\nA-1,ABCDE1234F,1,2,Y,B7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Extra(op, tbl); !reflect.DeepEqual(got, []string{"myRef", "branch.code"}) {
		t.Errorf("Extra = %q, want [myRef branch.code]", got)
	}
	rows, err := Build(op, tbl, nil, "RUN42")
	if err != nil {
		t.Fatal(err)
	}
	body := bodyJSON(t, rows[0].Body)
	if strings.Contains(body, "A-1") || strings.Contains(body, "B7") || strings.Contains(body, "branch") || strings.Contains(body, "myRef") {
		t.Errorf("body = %s; carried columns must not be sent", body)
	}
}

// Every cell must be valid UTF-8 and no longer than its field takes: one
// problem per cell, FILE:LINE: column: reason, without quoting the value.
func TestBuildRefusesBadUTF8AndLongCells(t *testing.T) {
	long := strings.Repeat("A", 2000)
	csvText := "pan,latitude,longitude,consent,note\n" +
		"ABCD\xffE1234F,1,2,Y,x\n" + // 2: pan not UTF-8
		"ABCDE1234F,1,2,Y,bad\xfe\n" + // 3: a carried column not UTF-8
		long + ",1,2,Y,x\n" + // 4: pan too long
		"ABCDE1234F,1,2,Y,x\n" // 5: fine
	_, err := build(t, svcapi.OpVerifyPanPlusV2, csvText)
	var ie *InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("Build = %v, want *InvalidError", err)
	}
	want := []string{
		"in.csv:2: pan: not valid UTF-8",
		"in.csv:3: note: not valid UTF-8",
		"in.csv:4: pan: 2000 bytes long, longer than the 1024 this field takes",
	}
	if got := ie.Lines(); !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
	// An integer field too: the length is reported before the type, and
	// the value is not quoted back.
	_, err = build(t, svcapi.OpBrandOrder, "externalRef,productKey,denomination,sender.name,receiver.name,receiver.contact,receiver.gift_message,latitude,longitude\n"+
		"R1,AMZ,"+long+",A,B,C,D,1,2\n")
	if !errors.As(err, &ie) || len(ie.Lines()) != 1 || ie.Lines()[0] != "in.csv:2: denomination: 2000 bytes long, longer than the 1024 this field takes" {
		t.Errorf("long integer cell: %v %q", err, ie.Lines())
	}
	// A header name that is not UTF-8.
	_, err = build(t, svcapi.OpVerifyPanPlusV2, "pan,latitude,longitude,consent,n\xffote\nABCDE1234F,1,2,Y,x\n")
	if !errors.As(err, &ie) || len(ie.Lines()) != 1 || ie.Lines()[0] != "in.csv:1: column 5: name not valid UTF-8" {
		t.Errorf("bad header: %v %q", err, ie.Lines())
	}
	// --set values likewise.
	op := mustOp(t, svcapi.OpVerifyPanPlusV2)
	if _, err := ParseSets(op, []string{"consent=Y\xff"}); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("ParseSets(invalid UTF-8) = %v", err)
	}
}

// A secret --set value is never quoted back in an error.
func TestParseSetsNeverQuotesASecret(t *testing.T) {
	op := mustOp(t, svcapi.OpBalanceInquiry)
	const marker = "PIDMARKER-7731"
	for _, arg := range []string{
		"biometricData.pidData=" + marker + "\xff",                       // not UTF-8
		"biometricData.pidData=" + marker + strings.Repeat("x", 300<<10), // too long
	} {
		_, err := ParseSets(op, []string{arg})
		if err == nil || strings.Contains(err.Error(), marker) || !strings.Contains(err.Error(), "biometricData.pidData") {
			t.Errorf("ParseSets(secret) = %.200v; want an error naming the field, not its value", err)
		}
	}
}
