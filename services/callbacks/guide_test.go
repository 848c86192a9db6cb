package main

import (
	"bytes"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/access"
)

// The merchant integration guide's verification programs
// (shell/public/docs/guide/snippets, served at /docs/guide/) accept a real
// callback of this service and refuse it once a byte of the body changed.
func TestGuideSnippetsVerifyARealCallback(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	m := newMerchant(t)
	c := newCollab(t, m)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)
	svc.createURL(t, admin, map[string]any{"collabId": c, "callbackUrl": rec.URL + "/hook", "addSignature": true})
	var secret struct {
		Secret string `json:"secret"`
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/merchants/"+strconv.Itoa(int(m))+"/callbacks/secret", nil, &secret)
	x := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x)
	waitFor(t, 15*time.Second, "the callback", func() bool { return len(rec.of(x.id)) == 1 })
	got := rec.of(x.id)[0]

	dir := filepath.Join("..", "..", "shell", "public", "docs", "guide", "snippets")
	for _, p := range []struct {
		lang string
		cmd  []string
	}{
		{"Go", []string{"go", "run", filepath.Join(dir, "verify.go")}},
		{"Node.js", []string{"node", filepath.Join(dir, "verify.mjs")}},
		{"Python", []string{"python3", filepath.Join(dir, "verify.py")}},
	} {
		t.Run(p.lang, func(t *testing.T) {
			if _, err := exec.LookPath(p.cmd[0]); err != nil {
				t.Skipf("%s is not installed here", p.cmd[0])
			}
			run := func(body []byte, secret string) (string, error) {
				cmd := exec.CommandContext(t.Context(), p.cmd[0], p.cmd[1:]...)
				cmd.Env = append(cmd.Environ(),
					"PAYGATE_WEBHOOK_SECRET="+secret,
					"WEBHOOK_ID="+got.header.Get("webhook-id"),
					"WEBHOOK_TIMESTAMP="+got.header.Get("webhook-timestamp"),
					"WEBHOOK_SIGNATURE="+got.header.Get("webhook-signature"))
				cmd.Stdin = bytes.NewReader(body)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if stderr.Len() > 0 {
					t.Logf("%s wrote: %s", p.cmd[0], stderr.String())
				}
				return strings.TrimSpace(string(out)), err
			}
			if out, err := run(got.body, secret.Secret); err != nil || out != "valid" {
				t.Fatalf("the real callback: %q (%v), want valid", out, err)
			}
			tampered := append(bytes.Clone(got.body), ' ')
			if out, err := run(tampered, secret.Secret); err == nil || out != "invalid: no signature matches" {
				t.Fatalf("a changed body: %q (%v), want invalid", out, err)
			}
			other := "whsec_" + strings.Repeat("A", 43) + "="
			if out, err := run(got.body, other); err == nil || out != "invalid: no signature matches" {
				t.Fatalf("another secret: %q (%v), want invalid", out, err)
			}
		})
	}
}
