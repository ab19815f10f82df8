package bulk

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/svcrecon/svcrecon/internal/jsonscan"
)

// KV is one flattened response value.
type KV struct{ Key, Value string }

// flatDoc is the data member of a response envelope (JSON) flattened into
// dotted keys in document order, prefixed "data.": objects are walked,
// arrays are kept as compact JSON text, null is "". A data member that is
// an array is one key, "data". Not JSON: nothing.
//
// It is read by a lean scanner in one pass, without a string made: each
// key's dotted text in one buffer, each value's place in the envelope. A
// document the scanner does not take (nested past its depth, or with two
// data members) goes to encoding/json, which reads it the same way
// (flattenJSON; FuzzFlattenData). A results file reads every journal
// row's answer into one flatDoc, reused.
type flatDoc struct {
	doc   []byte     // the envelope
	keys  []byte     // the dotted keys, one after another
	items []flatItem // in document order
	path  []byte     // the key of the object being read
	slow  []KV       // what encoding/json read, when the scanner refused doc
}

// flatItem is one flattened value: its key, keys[keyFrom:keyTo], and its
// JSON text in the envelope.
type flatItem struct {
	keyFrom, keyTo int
	val            jsonscan.Span
}

// load reads the data member of envelope into d (what d held before is
// dropped): by the lean scanner (read), else by encoding/json (d.slow).
func (d *flatDoc) load(envelope []byte) {
	d.doc, d.slow = envelope, nil
	if d.read(envelope) {
		return
	}
	d.keys, d.items = d.keys[:0], d.items[:0]
	d.slow = flattenJSON(envelope)
	for _, kv := range d.slow {
		from := len(d.keys)
		d.keys = append(d.keys, kv.Key...)
		d.items = append(d.items, flatItem{keyFrom: from, keyTo: len(d.keys)})
	}
}

// read flattens the data member of envelope into d (what d held before is
// dropped). It returns false when the scanner does not take the document:
// not JSON, nested deeper than flattenDepth, or with a second data member
// (encoding/json keeps the last; load leaves that to it).
func (d *flatDoc) read(b []byte) bool {
	d.keys, d.items = d.keys[:0], d.items[:0]
	seen := false
	end, ok := members(b, jsonscan.SkipWS(b, 0), 0, func(key []byte, at int) (int, bool) {
		if string(key) != "data" {
			return jsonscan.SkipValue(b, at, 0)
		}
		if seen {
			return 0, false
		}
		seen = true
		d.path = append(d.path[:0], "data"...)
		return d.value1(b, at, 1)
	})
	return ok && jsonscan.SkipWS(b, end) == len(b)
}

// value1 reads the value at b[at], whose key is d.path: an object member
// by member (each byte read once), anything else as one item. It returns
// the index after the value.
func (d *flatDoc) value1(b []byte, at, depth int) (int, bool) {
	if b[at] == '{' {
		return members(b, at, depth, func(k []byte, v int) (int, bool) {
			n := len(d.path)
			d.path = append(append(d.path, '.'), k...)
			end, ok := d.value1(b, v, depth+1)
			d.path = d.path[:n]
			return end, ok
		})
	}
	end, ok := jsonscan.SkipValue(b, at, depth)
	if !ok {
		return 0, false
	}
	from := len(d.keys)
	d.keys = append(d.keys, d.path...)
	d.items = append(d.items, flatItem{from, len(d.keys), jsonscan.Span{From: at, To: end}})
	return end, true
}

// key is the dotted key of item i (valid until the next read).
func (d *flatDoc) key(i int) []byte { return d.keys[d.items[i].keyFrom:d.items[i].keyTo] }

// value is the text of item i as a results cell shows it: an array as
// compact JSON, anything else as jsonscan.Text reads it (a string's text,
// null as "", a number or boolean as it is written).
func (d *flatDoc) value(i int) string {
	if d.slow != nil {
		return d.slow[i].Value
	}
	s := d.items[i].val
	if v := d.doc[s.From:s.To]; v[0] == '[' {
		var buf bytes.Buffer
		if json.Compact(&buf, v) == nil {
			return buf.String()
		}
		return ""
	}
	t, _ := jsonscan.Text(d.doc, s)
	return t
}

// flattenJSON is what flatDoc reads, through encoding/json.
func flattenJSON(envelope []byte) []KV {
	var top map[string]json.RawMessage
	if json.Unmarshal(envelope, &top) != nil {
		return nil
	}
	data, ok := top["data"]
	if !ok {
		return nil
	}
	var out []KV
	flatten("data", data, &out)
	return out
}

func flatten(key string, raw json.RawMessage, out *[]KV) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	switch raw[0] {
	case '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if _, err := dec.Token(); err != nil {
			return
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return
			}
			k, _ := tok.(string)
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return
			}
			flatten(key+"."+k, v, out)
		}
	case '[':
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			*out = append(*out, KV{key, buf.String()})
		}
	case '"':
		var s string
		json.Unmarshal(raw, &s)
		*out = append(*out, KV{key, s})
	case 'n':
		*out = append(*out, KV{key, ""})
	default:
		*out = append(*out, KV{key, string(raw)})
	}
}

// flattenDepth bounds the objects flatDoc follows into (deeper ones go
// to encoding/json).
const flattenDepth = 64

// members scans the object at b[i] == '{': for each member it calls value
// with the member's key (its text, valid until value returns) and the
// index where its value starts, in document order; value scans the value
// and returns the index after it. members returns the index after the
// object; false when b[i:] is not an object of valid JSON, is nested
// deeper than flattenDepth, or value returned false.
func members(b []byte, i, depth int, value func(key []byte, at int) (end int, ok bool)) (int, bool) {
	if depth > flattenDepth || i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = jsonscan.SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	var scratch, key []byte
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		kend, ok := jsonscan.SkipValue(b, i, depth)
		if !ok {
			return 0, false
		}
		key, scratch = unquoted(scratch, b[i:kend])
		i = jsonscan.SkipWS(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		vstart := jsonscan.SkipWS(b, i+1)
		if vstart >= len(b) {
			return 0, false
		}
		if i, ok = value(key, vstart); !ok {
			return 0, false
		}
		i = jsonscan.SkipWS(b, i)
		switch {
		case i < len(b) && b[i] == ',':
			i = jsonscan.SkipWS(b, i+1)
		case i < len(b) && b[i] == '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// unquoted is the text of the JSON string q (quotes included, valid): its
// own bytes when it has no escape and is valid UTF-8, else as
// encoding/json reads it, decoded into scratch (scratch[:0] reused; it
// never holds q's bytes, so q's document is never written).
func unquoted(scratch, q []byte) (text, scratchOut []byte) {
	in := q[1 : len(q)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return in, scratch
	}
	var s string
	json.Unmarshal(q, &s)
	scratch = append(scratch[:0], s...)
	return scratch, scratch
}
