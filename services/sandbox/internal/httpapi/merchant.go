package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/services/sandbox/internal/merchant"
)

// The demo merchant's answers.
const (
	// RejectReason is the reason /merchant/validate/reject gives.
	RejectReason = "Rejected by the demo merchant."
	// MaxSlow bounds the delay of /merchant/validate/slow.
	MaxSlow = time.Minute
)

// maxMerchantBody bounds what the demo merchant reads of a request.
const maxMerchantBody = 1 << 20

// merchantRoutes adds the demo merchant (docs/contracts-validation.md) to
// mux:
//
//	POST /merchant/validate/approve     200 {"approved": true}
//	POST /merchant/validate/reject      200 {"approved": false, "reason": RejectReason}
//	POST /merchant/validate/slow?ms=N   approves after N ms (at most MaxSlow)
//	POST /merchant/callbacks            checks the Standard Webhooks signature with the demo secret of
//	                                    data.merchantId and records the callback: 200, or 401 when the
//	                                    signature is missing, stale or wrong
//	POST /merchant/callbacks/fail       records the callback and answers 500
//	GET  /merchant/callbacks?transactionId=&webhookId=   {"callbacks": [...]} recorded, oldest first
func merchantRoutes(mux *http.ServeMux, rec *merchant.Recorder, log *slog.Logger, now func() time.Time) {
	mux.HandleFunc("POST /merchant/validate/approve", func(w http.ResponseWriter, r *http.Request) {
		drain(r)
		writeJSON(w, http.StatusOK, map[string]any{"approved": true})
	})
	mux.HandleFunc("POST /merchant/validate/reject", func(w http.ResponseWriter, r *http.Request) {
		drain(r)
		writeJSON(w, http.StatusOK, map[string]any{"approved": false, "reason": RejectReason})
	})
	mux.HandleFunc("POST /merchant/validate/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
		if err != nil || ms < 0 || time.Duration(ms)*time.Millisecond > MaxSlow {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "ms must be a number of milliseconds from 0 to 60000"})
			return
		}
		drain(r)
		if !sleep(r.Context(), time.Duration(ms)*time.Millisecond) {
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"approved": true})
	})
	mux.HandleFunc("POST /merchant/callbacks", func(w http.ResponseWriter, r *http.Request) {
		c := receive(r, now)
		c.Answered = http.StatusOK
		secret := merchant.DemoSecret(c.MerchantID)
		if c.Error == "" && c.MerchantID <= 0 {
			c.Error = "the body must be JSON with data.merchantId"
			c.Answered = http.StatusBadRequest
		} else if c.Error == "" {
			err := merchant.Verify(secret, c.WebhookID, r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), c.body, now())
			c.SignatureValid = err == nil
			if err != nil {
				c.Error, c.Answered = err.Error(), http.StatusUnauthorized
			}
		}
		rec.Add(c.Callback)
		if c.Error != "" {
			log.WarnContext(r.Context(), "demo merchant refused a callback", "webhook_id", c.WebhookID, "error", c.Error)
			writeJSON(w, c.Answered, map[string]any{"error": c.Error})
			return
		}
		log.InfoContext(r.Context(), "demo merchant received a callback", "webhook_id", c.WebhookID, "transaction_id", c.TransactionID)
		writeJSON(w, http.StatusOK, map[string]any{"received": true})
	})
	mux.HandleFunc("POST /merchant/callbacks/fail", func(w http.ResponseWriter, r *http.Request) {
		c := receive(r, now)
		if c.MerchantID > 0 {
			err := merchant.Verify(merchant.DemoSecret(c.MerchantID), c.WebhookID, r.Header.Get("webhook-timestamp"),
				r.Header.Get("webhook-signature"), c.body, now())
			c.SignatureValid = err == nil
		}
		c.Answered, c.Error = http.StatusInternalServerError, "the demo merchant always fails here"
		rec.Add(c.Callback)
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": c.Error})
	})
	mux.HandleFunc("GET /merchant/callbacks", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		writeJSON(w, http.StatusOK, map[string]any{"callbacks": rec.Find(q.Get("transactionId"), q.Get("webhookId"))})
	})
}

// received is a callback with its raw body.
type received struct {
	merchant.Callback
	body []byte
}

// receive reads a callback's headers and body; what the body names is read
// when it is the callback JSON of docs/contracts-validation.md.
func receive(r *http.Request, now func() time.Time) received {
	c := received{Callback: merchant.Callback{WebhookID: r.Header.Get("webhook-id"), ReceivedAt: now().UTC(), Path: r.URL.Path}}
	c.Timestamp, _ = strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
	for name, values := range r.Header {
		if strings.HasPrefix(name, "X-") && len(values) > 0 {
			if c.Headers == nil {
				c.Headers = map[string]string{}
			}
			c.Headers[name] = values[0]
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxMerchantBody+1))
	if err != nil || len(body) > maxMerchantBody {
		c.Error = "the body could not be read (at most 1 MiB)"
		return c
	}
	c.body = body
	var payload struct {
		Type string `json:"type"`
		Data struct {
			ID                flexString `json:"id"`
			MerchantID        flexString `json:"merchantId"`
			TransactionStatus int        `json:"transactionStatus"`
		} `json:"data"`
	}
	if json.Valid(body) {
		c.Body = json.RawMessage(bytes.Clone(body))
		if json.Unmarshal(body, &payload) == nil {
			c.Type, c.TransactionID, c.TransactionStatus = payload.Type, string(payload.Data.ID), payload.Data.TransactionStatus
			c.MerchantID, _ = strconv.ParseInt(string(payload.Data.MerchantID), 10, 64)
		}
	}
	return c
}

// flexString reads a JSON string or number as its text.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*f = flexString(n.String())
	return nil
}

// drain reads what is left of a request body (bounded), so that the
// connection can be reused.
func drain(r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxMerchantBody))
}
