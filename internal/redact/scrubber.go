package redact

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// MinSecret is the length of the shortest value a Scrubber removes: a
// shorter one (a flag, a digit) would blank out unrelated text.
const MinSecret = 4

// Scrubber removes secret values from whatever is about to be printed,
// logged, stored or exported: the client secret, the database password,
// the biometrics of a request. It is the one redaction every writer uses
// (the API client on every answer, the call log, the log handler).
//
// A value is found in every spelling the service, a gateway or a log may
// give it: in any letter case; JSON-escaped (\u0041, \/ …); URL-encoded
// (any of its bytes as %XX, hex digits of either case); split by line
// breaks (CR, LF, raw, escaped or encoded); and base64-encoded, standard or
// URL alphabet, padded or not, alone or inside a longer base64 text. Each
// match becomes Marker.
//
// The zero value and nil remove nothing. A Scrubber is safe for concurrent
// use.
type Scrubber struct {
	mu  sync.Mutex // serializes Learn
	set atomic.Pointer[needleSet]
}

// NewScrubber returns a Scrubber that removes the given values (those
// shorter than MinSecret are ignored).
func NewScrubber(values ...string) *Scrubber {
	s := &Scrubber{}
	s.Learn(values...)
	return s
}

// Learn adds values to remove from now on (those shorter than MinSecret,
// or known already, are ignored).
func (s *Scrubber) Learn(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if next := s.set.Load().plus(values); next != nil {
		s.set.Store(next)
	}
}

// With returns a new Scrubber that removes what s removes now and the
// given values too (the sensitive values of one request); s is unchanged.
func (s *Scrubber) With(values ...string) *Scrubber {
	out := &Scrubber{}
	cur := s.needles()
	if next := cur.plus(values); next != nil {
		cur = next
	}
	out.set.Store(cur)
	return out
}

// Values returns the values s removes.
func (s *Scrubber) Values() []string {
	if ns := s.needles(); ns != nil {
		return slices.Clone(ns.values)
	}
	return nil
}

func (s *Scrubber) needles() *needleSet {
	if s == nil {
		return nil
	}
	return s.set.Load()
}

// Bytes returns b with every spelling of every value replaced by Marker: b
// itself when nothing matched, else a new slice.
func (s *Scrubber) Bytes(b []byte) []byte {
	ns := s.needles()
	if ns == nil || len(b) == 0 {
		return b
	}
	return ns.scrub(b)
}

// String is Bytes for a string.
func (s *Scrubber) String(x string) string {
	ns := s.needles()
	if ns == nil || x == "" {
		return x
	}
	b := unsafe.Slice(unsafe.StringData(x), len(x)) // read only
	if out := ns.scrub(b); len(out) != len(b) || unsafe.SliceData(out) != unsafe.SliceData(b) {
		return string(out)
	}
	return x
}

// Text is String for free text about to be shown or logged (an error, a
// status message): the values removed, then Text's masks and escapes.
func (s *Scrubber) Text(x string) string { return Text(s.String(x)) }

// needleSet is what a Scrubber searches for, compiled from its values.
type needleSet struct {
	values  []string
	needles []needle
}

// needle is one spelling of a value as the search looks for it.
type needle struct {
	text []byte
	fold bool // text is lower case and compared ignoring ASCII case
	rare int  // index of the byte of text looked for first: the rarest in common text
	// A base64 needle is the part of a value's encoding that depends on the
	// value alone, at one alignment; back and fwd are how many characters
	// before and after it also carry some of the value's bits: a match is
	// widened over them (and over the padding that may follow).
	b64       bool
	back, fwd int
}

func newNeedle(text []byte, fold bool) needle {
	n := needle{text: text, fold: fold}
	for i, c := range text {
		if commonness(c, fold) < commonness(text[n.rare], fold) {
			n.rare = i
		}
	}
	return n
}

// plus returns ns with values added; nil when none is new.
func (ns *needleSet) plus(values []string) *needleSet {
	var out *needleSet
	for _, v := range values {
		if len(v) < MinSecret || ns != nil && slices.Contains(ns.values, v) || out != nil && slices.Contains(out.values, v) {
			continue
		}
		if out == nil {
			out = &needleSet{}
			if ns != nil {
				out.values = slices.Clone(ns.values)
				out.needles = slices.Clone(ns.needles)
			}
		}
		c := compiled(v)
		out.values = append(out.values, v)
		out.needles = append(out.needles, c.needles...)
	}
	return out
}

// minOffsetSecret is the shortest value whose base64 spelling is also
// looked for inside a longer base64 text (at the other two alignments):
// the part of a shorter one that depends on it alone is too short to tell.
const minOffsetSecret = 6

// The values compiled lately, so that a call that scrubs with the same
// values (Scrub with the client secret, for every field of every line)
// does not compile them each time. Cleared when it grows past cacheMax.
var (
	cache    sync.Map // string -> *needleSet
	cacheN   atomic.Int64
	cacheMax int64 = 4096
)

// compiled returns the needles of one value.
func compiled(v string) *needleSet {
	if c, ok := cache.Load(v); ok {
		return c.(*needleSet)
	}
	c := compile(v)
	if cacheN.Add(1) > cacheMax {
		cache.Clear()
		cacheN.Store(0)
	}
	cache.Store(v, c)
	return c
}

func compile(v string) *needleSet {
	ns := &needleSet{values: []string{v}}
	add := func(n needle) {
		if !slices.ContainsFunc(ns.needles, func(x needle) bool { return x.fold == n.fold && bytes.Equal(x.text, n.text) }) {
			ns.needles = append(ns.needles, n)
		}
	}
	for _, s := range []string{v, string(decode([]byte(v), nil, nil)), strings.ReplaceAll(v, " ", "+")} {
		// As it is, as the search sees a text (escapes decoded, no line
		// breaks), and with a form's encoding of a space.
		if s != "" {
			add(newNeedle([]byte(strings.ToLower(s)), true))
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := range 3 {
			if k > 0 && len(v) < minOffsetSecret {
				break
			}
			// k filler bytes before the value: the characters of the
			// encoding that depend on the value alone start past them.
			full := enc.EncodeToString(append(make([]byte, k), v...))
			bits := 8 * (k + len(v))
			n := newNeedle([]byte(full[[3]int{0, 2, 3}[k]:bits/6]), false)
			n.b64 = true
			if k > 0 {
				n.back = 1
			}
			if bits%6 != 0 {
				n.fwd = 1
			}
			add(n)
		}
	}
	return ns
}

// span is a part of a text to replace: [from, to).
type span struct{ from, to int }

// maxLevels bounds how many times a text is decoded: a value escaped
// twice (JSON inside JSON, URL-encoded JSON) is found, and a text that
// decodes without end costs a bounded time.
const maxLevels = 3

// scrub returns h with every match replaced by Marker (h itself when
// none). It searches h, then its view (decode), then the view's view while
// it still holds escapes, and maps what it finds back to h.
func (ns *needleSet) scrub(h []byte) []byte {
	var bufs []*[]byte
	defer func() {
		for _, b := range bufs {
			viewPool.Put(b)
		}
	}()
	if plainText(h) {
		return replace(h, ns.find(h)) // the common case: h is its own view
	}
	// The views hold every spelling the text does (compile adds each
	// value's own view): h itself is not searched.
	levels := [][]byte{h}
	found := [][]span{nil} // by level
	for cur := h; len(levels) <= maxLevels && !plainText(cur); {
		buf := viewPool.Get().(*[]byte)
		bufs = append(bufs, buf)
		*buf = decode(cur, (*buf)[:0], nil)
		cur = *buf
		levels = append(levels, cur)
		found = append(found, ns.find(cur))
	}
	// Map what was found in each view to the text it was decoded from.
	for l := len(levels) - 1; l > 0; l-- {
		if len(found[l]) == 0 {
			continue
		}
		var m viewMap
		decode(levels[l-1], nil, &m)
		for _, sp := range found[l] {
			found[l-1] = append(found[l-1], span{m.start[sp.from], m.end[sp.to-1]})
		}
	}
	return replace(h, merge(found[0]))
}

var viewPool = sync.Pool{New: func() any { return new([]byte) }}

// find returns the merged matches of the needles in v.
func (ns *needleSet) find(v []byte) []span {
	var out []span
	for k := range ns.needles {
		n := &ns.needles[k]
		for i := 0; ; {
			j := n.index(v[i:])
			if j < 0 {
				break
			}
			sp := span{i + j, i + j + len(n.text)}
			i = sp.to
			if n.b64 {
				sp = widen(v, sp, *n)
			}
			out = append(out, sp)
		}
	}
	return merge(out)
}

// index is the index of the first match of n in h, or -1. It looks for
// the needle's rarest byte first (bytes.IndexByte), then compares.
func (n *needle) index(h []byte) int {
	last := len(h) - len(n.text) // the last place a match may start
	if len(n.text) == 0 || last < 0 {
		return -1
	}
	lo, up := n.text[n.rare], n.text[n.rare]
	if n.fold && 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	for i := 0; i <= last; i++ {
		j := indexEither(h[i+n.rare:last+n.rare+1], lo, up)
		if j < 0 {
			return -1
		}
		i += j
		if n.fold && equalFold(h[i:i+len(n.text)], n.text) || !n.fold && bytes.Equal(h[i:i+len(n.text)], n.text) {
			return i
		}
	}
	return -1
}

// widen extends a base64 match over the characters around it that carry
// some of the value's bits, and the padding after it.
func widen(v []byte, sp span, n needle) span {
	if n.back > 0 && sp.from > 0 && isB64(v[sp.from-1]) {
		sp.from--
	}
	if n.fwd > 0 && sp.to < len(v) && isB64(v[sp.to]) {
		sp.to++
	}
	for pad := 0; pad < 2 && sp.to < len(v) && v[sp.to] == '='; pad++ {
		sp.to++
	}
	return sp
}

func isB64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// merge sorts spans and joins those that overlap or touch.
func merge(sp []span) []span {
	if len(sp) < 2 {
		return sp
	}
	slices.SortFunc(sp, func(a, b span) int { return a.from - b.from })
	out := sp[:1]
	for _, s := range sp[1:] {
		last := &out[len(out)-1]
		if s.from <= last.to {
			last.to = max(last.to, s.to)
			continue
		}
		out = append(out, s)
	}
	return out
}

// replace returns h with each span replaced by Marker; h itself when none.
func replace(h []byte, sp []span) []byte {
	if len(sp) == 0 {
		return h
	}
	out := make([]byte, 0, len(h))
	at := 0
	for _, s := range sp {
		out = append(out, h[at:s.from]...)
		out = append(out, Marker...)
		at = s.to
	}
	return append(out, h[at:]...)
}

// indexEither is the index of the first a or b in h, or -1.
func indexEither(h []byte, a, b byte) int {
	i := bytes.IndexByte(h, a)
	if a == b {
		return i
	}
	lim := len(h)
	if i >= 0 {
		lim = i
	}
	if j := bytes.IndexByte(h[:lim], b); j >= 0 {
		return j
	}
	return i
}

// equalFold compares h with the lower-case n, ignoring ASCII case.
func equalFold(h, n []byte) bool {
	for k, c := range h {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != n[k] {
			return false
		}
	}
	return true
}

// byFrequency lists bytes from the most to the least frequent in the text
// a Scrubber meets (JSON answers, log lines); those not listed are rarer.
const byFrequency = ` "e:,taoinsr0l1c2dh.ump-5_T34SgIfyRE6Cb9NA87vPwODkLMx{}BUGFHVWKjqYXzJQZ`

var frequency = func() (f [256]int) {
	for i := 0; i < len(byFrequency); i++ {
		f[byFrequency[i]] = len(byFrequency) - i
	}
	return f
}()

// commonness is how often c is met (higher: more often); with fold, as
// often as its more frequent case.
func commonness(c byte, fold bool) int {
	f := frequency[c]
	if fold && 'a' <= c && c <= 'z' {
		f = max(f, frequency[c-'a'+'A'])
	}
	return f
}
