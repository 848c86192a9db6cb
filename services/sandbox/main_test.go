package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// addrWriter reports the address run logs once it serves.
type addrWriter struct {
	mu   sync.Mutex
	addr chan string
}

func (w *addrWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sc := bufio.NewScanner(bytes.NewReader(p))
	for sc.Scan() {
		var l struct {
			Msg  string `json:"msg"`
			Addr string `json:"http_addr"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "serving" {
			w.addr <- l.Addr
		}
	}
	return len(p), nil
}

func TestRun(t *testing.T) {
	env := map[string]string{"PAYGATE_HTTP_ADDR": "127.0.0.1:0", "PAYGATE_SANDBOX_PROVIDERS": "qrph=failed/1ms", "PAYGATE_SANDBOX_WEBHOOKS": "false"}
	w := &addrWriter{addr: make(chan string, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, func(k string) string { return env[k] }, w) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	var base string
	select {
	case a := <-w.addr:
		base = "http://" + a
	case err := <-done:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("not serving")
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	call := func(method, path, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return resp.StatusCode, m
	}
	tests := []struct {
		path, body, status string
		code               int
	}{
		{"/govip/payments", `{"reference":"R1","amount":"10.00"}`, "success", 200},
		{"/qrph/payments", `{"reference":"R2","amount":"10.00"}`, "failed", 200},
		{"/govip/payments", `{"reference":"R3","amount":"10.00","tags":["sandbox:outcome=pending-success","sandbox:pending=1h"]}`, "pending", 200},
		{"/govip/payments", `{"reference":"R4","amount":"10.00","additionalData":{"sandbox:outcome":"error"}}`, "", 500},
		{"/nobody/payments", `{"reference":"R5","amount":"10.00"}`, "", 404},
		{"/govip/payments", `{"amount":"10.00"}`, "", 400},
	}
	for _, tt := range tests {
		code, m := call(http.MethodPost, tt.path, tt.body)
		if code != tt.code || (tt.status != "" && m["status"] != tt.status) {
			t.Errorf("%s %s = %d %v", tt.path, tt.body, code, m)
		}
		if code == 200 {
			id, _ := m["providerTransactionId"].(string)
			if code, got := call(http.MethodGet, strings.TrimSuffix(tt.path, "payments")+"payments/"+id, ""); code != 200 || got["status"] != tt.status {
				t.Errorf("status of %s = %d %v", id, code, got)
			}
		}
	}
	if code, m := call(http.MethodGet, "/fbpay/balance", ""); code != 200 || m["success"] != true {
		t.Errorf("fbpay balance = %d %v", code, m)
	} else if w, _ := m["data"].(map[string]any)["wallet"].(map[string]any); w["availableBalance"] != "250000.00" || w["currency"] != "PHP" {
		t.Errorf("fbpay balance wallet = %v", m)
	}
	withCreds := func(creds string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, base+"/humpas/balance", nil)
		req.Header.Set("X-Paygate-Credentials", base64.RawURLEncoding.EncodeToString([]byte(creds)))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if code, m := withCreds(`{"merchantId":"HP-77","apiKey":"k"}`); code != 200 ||
		m["result"].(map[string]any)["account"] != "HP-77" || fmt.Sprint(m["result"].(map[string]any)["authenticatedWith"]) != "[apiKey merchantId]" {
		t.Errorf("humpas balance with credentials = %d %v", code, m)
	}
	if code, _ := withCreds(`{"apiKey":"invalid-1"}`); code != 401 {
		t.Errorf("humpas balance with an invalid key = %d, want 401", code)
	}
	if code, _ := call(http.MethodGet, "/govip/balance", ""); code != 404 {
		t.Errorf("govip balance = %d, want 404", code)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	env := map[string]string{"PAYGATE_SANDBOX_PROVIDERS": "nobody=success"}
	if err := run(context.Background(), func(k string) string { return env[k] }, io.Discard); err == nil {
		t.Fatal("accepted an unknown provider")
	}
}
