package harness

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"
)

// LoadAvg is the machine's 1-, 5- and 15-minute load averages ("1.02 0.88
// 0.61"), or "?": the machine may be shared, and figures are read against it.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// Load1 is the machine's 1-minute load average, or "?".
func Load1() string { return strings.Fields(LoadAvg())[0] }

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's
// times: 100 on Linux everywhere that matters here.
const clockTicks = 100

// stat reads a /proc/<pid>/stat line: the program's name (comm) and the
// user + system CPU time the process has used.
func stat(b []byte) (string, time.Duration, bool) {
	// pid (comm) state ppid ... utime stime: fields 14 and 15, the 12th and
	// 13th after the comm's closing parenthesis.
	open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return "", 0, false
	}
	f := strings.Fields(string(b[closing+1:]))
	if len(f) < 13 {
		return "", 0, false
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return string(b[open+1 : closing]), time.Duration(utime+stime) * (time.Second / clockTicks), true
}

// ProcessCPU is the user + system CPU time process pid has used, or 0 when
// it cannot be read.
func ProcessCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, d, _ := stat(b)
	return d
}

// ProcessFaults is the number of minor page faults process pid has taken
// (a page of memory touched for the first time since the kernel gave it, or
// since the Go runtime returned it), or 0 when it cannot be read.
func ProcessFaults(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// minflt is field 10: the 8th after the comm's closing parenthesis.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 8 {
		return 0
	}
	n, _ := strconv.ParseInt(f[7], 10, 64)
	return n
}

// CPUByProgram is the CPU time (user + system) each program's running
// processes have used so far, by the name the kernel knows them by
// (postgres, gateway, sandbox, nats-server...). Programs whose processes
// exit meanwhile are undercounted; the measured ones (a pool's Postgres
// backends, the services) live through a phase.
func CPUByProgram() map[string]time.Duration {
	out := map[string]time.Duration{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		if name, cpu, ok := stat(b); ok {
			out[name] += cpu
		}
	}
	return out
}

// RandomHex is n random bytes in hex: a suffix that keeps one run's schemas
// and ids apart from another's.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// SameAmount tells whether two decimal strings are the same number
// ("12.50" and "12.5"); anything that is not a number is never the same.
func SameAmount(a, b string) bool {
	var x, y big.Rat
	if _, ok := x.SetString(a); !ok {
		return false
	}
	if _, ok := y.SetString(b); !ok {
		return false
	}
	return x.Cmp(&y) == 0
}
