package svcapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The tests call operations the way the program does (bulk, from a CSV
// row): Client.Do with the operation's name and a map of its request
// fields, and read the answer generically: the envelope, the pool
// (ExtractPool) and the data by path.

// withLoc adds the end customer's position most billable calls send.
func withLoc(body map[string]any) map[string]any {
	maps.Copy(body, map[string]any{"latitude": "12.9716", "longitude": "77.5946"})
	return body
}

func verifyPanRequest() map[string]any {
	return withLoc(map[string]any{"pan": "AAAPZ0000Z", "externalRef": "TESTPAN0001", "consent": "Y"})
}

func balanceRequest() map[string]any {
	return withLoc(map[string]any{"bankiin": "600001", "mobile": "9000000001", "externalRef": "TESTBI0001",
		"captureType": "FINGER", "biometricData": map[string]any{
			"encryptedAadhaar": "ENCAADHAAR-SECRET", "dc": "DC1", "ci": "20261231", "hmac": "HMAC-SECRET", "dpId": "DP.TEST", "mc": "MC1",
			"pidDataType": "X", "sessionKey": "SESSIONKEY-SECRET", "mi": "MI1", "rdsId": "RDS.TEST", "fType": "2", "iCount": "0",
			"pType": "0", "srno": "SRNO0001", "pidData": "PIDDATA-SECRET", "qScore": "80", "nmPoints": "40", "rdsVer": "1.0.0",
		}})
}

func brandOrderRequest(ref, sender string, denomination int) map[string]any {
	return withLoc(map[string]any{"externalRef": ref, "productKey": "PK-TEST", "denomination": denomination,
		"sender":   map[string]any{"name": sender},
		"receiver": map[string]any{"name": "TEST RECEIVER", "contact": "receiver@example.invalid", "gift_message": "Happy testing"}})
}

func statementRequest(isOrder bool) svcapi.StatementRequest {
	r := svcapi.StatementRequest{BankProfileID: "7", AccountNumber: "0409000123456", ExternalRef: "TESTSTMT01",
		Pagination: svcapi.Pagination{PageNumber: "1", RecordsPerPage: "2"},
		Filters:    svcapi.StatementFilters{TxnDateFrom: "2026-11-19", TxnDateTo: "2026-11-19"}}
	if isOrder {
		r.BankProfileID, r.IsOrder = "0", true
	}
	return r
}

// do calls op with body and fails the test on an error.
func do(tb testing.TB, c *svcapi.Client, op string, body any) *svcapi.Envelope {
	tb.Helper()
	env, err := c.Do(context.Background(), op, body)
	if err != nil {
		tb.Fatalf("%s: %v", op, err)
	}
	return env
}

// poolOf is the pool debit of an answer, as the ledger and bulk read it.
func poolOf(tb testing.TB, env *svcapi.Envelope) *svcapi.Pool {
	tb.Helper()
	p, err := svcapi.ExtractPool(env)
	if err != nil {
		tb.Fatalf("ExtractPool: %v", err)
	}
	return &p
}

// data is the value at a dotted path of the answer's data (an array
// element by its index), as text: a string as it is, a number as written,
// anything else as compact JSON; "(absent)" when there is none.
func data(tb testing.TB, env *svcapi.Envelope, path string) string {
	tb.Helper()
	var cur any
	dec := json.NewDecoder(bytes.NewReader(env.Data))
	dec.UseNumber()
	if err := dec.Decode(&cur); err != nil {
		tb.Fatalf("data: %v", err)
	}
	for _, part := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			var ok bool
			if cur, ok = v[part]; !ok {
				return "(absent)"
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				return "(absent)"
			}
			cur = v[i]
		default:
			return "(absent)"
		}
	}
	return fmtValue(cur)
}

// dataEq compares the text at paths of the answer's data with the wanted
// texts (path, want, path, want …).
func dataEq(tb testing.TB, env *svcapi.Envelope, pathWant ...string) {
	tb.Helper()
	for i := 0; i+1 < len(pathWant); i += 2 {
		if got := data(tb, env, pathWant[i]); got != pathWant[i+1] {
			tb.Errorf("data.%s = %s, want %s", pathWant[i], got, pathWant[i+1])
		}
	}
}
