package redact

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// A Scrubber searches a text's view: the text with its JSON string escapes
// and URL %XX escapes decoded and its line breaks left out, so that one
// search finds a value however it was escaped or split.

// plainText reports whether h is its own view: it holds no backslash, no
// '%' and no line break.
func plainText(h []byte) bool {
	return bytes.IndexByte(h, '\\') < 0 && bytes.IndexByte(h, '%') < 0 &&
		bytes.IndexByte(h, '\n') < 0 && bytes.IndexByte(h, '\r') < 0
}

// viewMap says where each byte of a view came from: h[start[i]:end[i]].
type viewMap struct{ start, end []int }

// decode appends the view of h to dst; with m, it records where each byte
// of the view came from.
func decode(h, dst []byte, m *viewMap) []byte {
	var out [utf8.UTFMax]byte
	sc := specials{h: h, pos: [4]int{-1, -1, -1, -1}}
	for i := 0; i < len(h); {
		if m == nil { // copy the run up to the next escape or line break
			j := sc.next(i)
			dst = append(dst, h[i:j]...)
			if i = j; i == len(h) {
				break
			}
		}
		n, k := 1, 0 // bytes of h read, bytes of out written
		switch c := h[i]; {
		case c == '\n' || c == '\r':
		case c == '\\':
			r, size, ok := jsonEscape(h[i:])
			switch {
			case !ok:
				out[0], k = c, 1
			case r != '\n' && r != '\r':
				n, k = size, utf8.EncodeRune(out[:], r)
			default:
				n = size
			}
		case c == '%' && i+2 < len(h) && isHex(h[i+1]) && isHex(h[i+2]):
			n = 3
			if b := unhex(h[i+1])<<4 | unhex(h[i+2]); b != '\n' && b != '\r' {
				out[0], k = b, 1
			}
		default:
			out[0], k = c, 1
		}
		dst = append(dst, out[:k]...)
		if m != nil {
			for range k {
				m.start = append(m.start, i)
				m.end = append(m.end, i+n)
			}
		}
		i += n
	}
	return dst
}

// jsonEscape reads the JSON string escape at b[0] == '\\': the rune it
// stands for and its length; ok false when b holds none.
func jsonEscape(b []byte) (r rune, size int, ok bool) {
	if len(b) < 2 {
		return 0, 0, false
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return 0, 0, false
		}
		if utf16.IsSurrogate(r) {
			if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
				if r2, ok := hex4(b[8:]); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						return d, 12, true
					}
				}
			}
			return utf8.RuneError, 6, true
		}
		return r, 6, true
	}
	return 0, 0, false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		if !isHex(c) {
			return 0, false
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// specials finds the bytes of a text that decode reads otherwise than
// copying them, remembering where the next of each is: a text is scanned
// once for each of them.
type specials struct {
	h   []byte
	pos [4]int // next index of each of specialBytes at or after the last asked; len(h) when none
}

var specialBytes = [4]byte{'\\', '%', '\n', '\r'}

// next returns the index of the first special byte at or after i, or len(h).
func (s *specials) next(i int) int {
	first := len(s.h)
	for k, c := range specialBytes {
		if s.pos[k] < i {
			if j := bytes.IndexByte(s.h[i:], c); j >= 0 {
				s.pos[k] = i + j
			} else {
				s.pos[k] = len(s.h)
			}
		}
		first = min(first, s.pos[k])
	}
	return first
}
