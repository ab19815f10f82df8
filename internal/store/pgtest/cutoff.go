package pgtest

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// CutOff returns dsn reached through a proxy that goes away, as a database
// host whose network or server fails, the first time a client sends a
// message holding trigger (say "INSERT INTO calls"): that message is not
// delivered, every connection is closed, and every later one is closed as
// soon as it is accepted. Gone reports whether it happened.
func CutOff(tb testing.TB, dsn string, trigger []byte) (proxied string, gone func() bool) {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &cutoff{target: u.Host, trigger: trigger}
	go p.serve(ln)
	tb.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	u.Host = ln.Addr().String()
	return u.String(), p.isGone
}

type cutoff struct {
	target  string
	trigger []byte
	mu      sync.Mutex
	gone    bool
	conns   []net.Conn
}

func (p *cutoff) isGone() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gone
}

// track keeps c to close at the cut; false (and c closed) once gone.
func (p *cutoff) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		c.Close()
		return false
	}
	p.conns = append(p.conns, c)
	return true
}

func (p *cutoff) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *cutoff) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		if !p.track(s) {
			c.Close()
			continue
		}
		go io.Copy(c, s)
		go p.forward(s, c)
	}
}

// forward copies the client's messages to the server until one holds the
// trigger (a message may span reads: the tail of the last read is kept).
func (p *cutoff) forward(server, client net.Conn) {
	buf := make([]byte, 64<<10)
	var tail []byte
	for {
		n, err := client.Read(buf)
		if n > 0 {
			seen := append(tail, buf[:n]...)
			if bytes.Contains(seen, p.trigger) {
				p.cut()
				return
			}
			if _, err := server.Write(buf[:n]); err != nil {
				return
			}
			tail = append([]byte(nil), seen[max(0, len(seen)-len(p.trigger)):]...)
		}
		if err != nil {
			server.Close()
			return
		}
	}
}
