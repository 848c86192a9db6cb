package main

import (
	"bufio"
	"io"
	"strings"
	"sync"
)

// logMux writes whole lines from several sources to one writer, each prefixed with its source's
// name, so that the lines of concurrent children never interleave mid-line.
type logMux struct {
	mu    sync.Mutex
	out   io.Writer
	width int
}

func newLogMux(out io.Writer, names []string) *logMux {
	m := &logMux{out: out, width: 8}
	for _, n := range names {
		m.width = max(m.width, len(n))
	}
	return m
}

// print writes s as it is.
func (m *logMux) print(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	io.WriteString(m.out, s)
}

// line writes one line with name's prefix.
func (m *logMux) line(name, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	io.WriteString(m.out, name+strings.Repeat(" ", max(0, m.width-len(name)))+" | "+text+"\n")
}

// writer returns a writer whose every line is printed with name's prefix.
func (m *logMux) writer(name string) io.Writer {
	return &prefixWriter{mux: m, name: name}
}

// copyLines prints each line read from r with name's prefix until r ends.
func (m *logMux) copyLines(name string, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		m.line(name, sc.Text())
	}
	// A line longer than the buffer stops the scanner: drain the rest so the child never blocks.
	_, _ = io.Copy(io.Discard, r)
}

type prefixWriter struct {
	mux  *logMux
	name string
	mu   sync.Mutex
	buf  []byte
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		w.mux.line(w.name, string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}
