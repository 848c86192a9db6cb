package callback

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/apperr"
)

// MaxURLLength bounds a callback URL.
const MaxURLLength = 2048

// Attempt list paging (proto ListCallbackAttemptsRequest).
const (
	DefaultTake = 100
	MaxTake     = 500
)

// Messages of refused requests (spec 02 §5 where it has them).
const (
	msgURLRequired    = "Callback URL is required."
	msgCollabRequired = "Collaboration is required."
	msgMaxAttempts    = "Max attempts must be between 1 and 12."
	msgType           = "Transaction type must be 1 (Cash In) or 2 (Cash Out), or empty for every type."
	msgURLTooLong     = "Callback URL must be at most 2048 characters."
	msgURLNotFound    = "The callback URL was not found."
	msgMerchant       = "The merchant was not found."
	msgAttempt        = "The callback attempt was not found."
)

// The overlap of a signing-secret rotation, in hours: by default, and at most.
const (
	DefaultOverlapHours = 24
	MaxOverlapHours     = 168
)

// Actions of CallbackUrlChanged events.
const (
	ActionCreated = "Created"
	ActionUpdated = "Updated"
	ActionDeleted = "Deleted"
)

// Input is a callback URL as a caller sends it: nil fields are absent.
type Input struct {
	CollabID        *int32
	URL             *string
	Enabled         *bool
	MaxAttempts     *int32
	AddSignature    *bool
	TransactionType *int32
	// FinalStatuses: nil or empty leaves them (every one on create); [0]
	// is every final status.
	FinalStatuses []int32
	// Headers, when not nil, replace the URL's custom headers (empty: none).
	Headers *[]HeaderInput
}

// Service answers the CallbacksService calls within each caller's scope.
type Service struct {
	store     Store
	collabs   Collabs
	merchants Merchants
	urls      URLChecker
	secrets   *Secrets
	now       func() time.Time
	queue     Queue
}

// Queue takes deliveries to send: the local Dispatcher.
type Queue interface {
	// Submit queues fresh deliveries; each job's Done is called once.
	Submit(ctx context.Context, jobs []Job)
	// Wake says stored deliveries were queued.
	Wake()
}

// NewService returns the service. queue (nil only where no events are
// handled and nothing is queued) sends the deliveries.
func NewService(store Store, collabs Collabs, merchants Merchants, urls URLChecker, secrets *Secrets, now func() time.Time, queue Queue) *Service {
	return &Service{store: store, collabs: collabs, merchants: merchants, urls: urls, secrets: secrets, now: now, queue: queue}
}

func (s *Service) wake() {
	if s.queue != nil {
		s.queue.Wake()
	}
}

// CollabURLs returns a collab's callback URLs. A collab of another merchant
// is not found; one without URLs gives an empty list.
func (s *Service) CollabURLs(ctx context.Context, scope Scope, collabID int32) ([]URL, error) {
	urls, err := s.store.CollabURLs(ctx, collabID)
	if err != nil {
		return nil, fmt.Errorf("list callback urls of collab %d: %w", collabID, err)
	}
	for _, u := range urls {
		if !scope.Includes(u.MerchantID) {
			return nil, apperr.NotFound("The collab was not found.")
		}
	}
	return urls, nil
}

// MerchantURLs returns a merchant's callback URLs (not found outside the
// caller's scope).
func (s *Service) MerchantURLs(ctx context.Context, scope Scope, merchantID int32) ([]URL, error) {
	if !scope.Includes(merchantID) {
		return nil, apperr.NotFound(msgMerchant)
	}
	urls, err := s.store.MerchantURLs(ctx, merchantID)
	if err != nil {
		return nil, fmt.Errorf("list callback urls of merchant %d: %w", merchantID, err)
	}
	return urls, nil
}

// Create adds a callback URL to a collab the caller may see. Absent fields
// take the defaults: enabled, 3 attempts, signed, every type.
func (s *Service) Create(ctx context.Context, a Actor, in Input) (URL, error) {
	u := URL{Enabled: true, MaxAttempts: DefaultAttempts, AddSignature: true, TransactionType: TypeAll}
	var problems []string
	if in.CollabID == nil || *in.CollabID <= 0 {
		problems = append(problems, msgCollabRequired)
	}
	if in.URL == nil || strings.TrimSpace(*in.URL) == "" {
		problems = append(problems, msgURLRequired)
	}
	problems = append(problems, apply(&u, in)...)
	if in.Headers != nil {
		var p []string
		u.Headers, p = checkHeaders(*in.Headers, nil)
		problems = append(problems, p...)
	}
	if len(problems) > 0 {
		return URL{}, apperr.Invalid("%s", strings.Join(problems, " "))
	}
	if err := s.checkURL(ctx, u.URL); err != nil {
		return URL{}, err
	}
	merchantID, err := s.merchantOf(ctx, a.Scope, u.CollabID)
	if err != nil {
		return URL{}, err
	}
	u.MerchantID = merchantID
	if len(u.Headers) > 0 {
		// Secret values are sealed bound to the URL's id: take it first.
		if u.ID, err = s.store.NextURLID(ctx); err != nil {
			return URL{}, err
		}
		if u.Headers, err = s.secrets.SealHeaders(u.ID, u.Headers); err != nil {
			return URL{}, err
		}
	}
	now := s.now()
	u.CreatedAt, u.UpdatedAt = now, now
	saved, err := s.store.CreateURL(ctx, u, func(saved URL) *eventsv1.CallbackUrlChanged {
		return changeEvent(a, ActionCreated, nil, &saved, now)
	})
	if err != nil {
		return URL{}, fmt.Errorf("create callback url: %w", err)
	}
	return saved, nil
}

// Update changes the fields of a callback URL that in carries. Moving it to
// another collab needs that collab in the caller's scope too.
func (s *Service) Update(ctx context.Context, a Actor, id int64, in Input) (URL, error) {
	old, err := s.visibleURL(ctx, a.Scope, id)
	if err != nil {
		return URL{}, err
	}
	u := old
	var problems []string
	if in.CollabID != nil && *in.CollabID <= 0 {
		problems = append(problems, msgCollabRequired)
	}
	if in.URL != nil && strings.TrimSpace(*in.URL) == "" {
		problems = append(problems, msgURLRequired)
	}
	problems = append(problems, apply(&u, in)...)
	if in.Headers != nil {
		var p []string
		u.Headers, p = checkHeaders(*in.Headers, old.Headers)
		problems = append(problems, p...)
	}
	if len(problems) > 0 {
		return URL{}, apperr.Invalid("%s", strings.Join(problems, " "))
	}
	if in.Headers != nil {
		if u.Headers, err = s.secrets.SealHeaders(u.ID, u.Headers); err != nil {
			return URL{}, err
		}
	}
	if u.URL != old.URL {
		if err := s.checkURL(ctx, u.URL); err != nil {
			return URL{}, err
		}
	}
	if u.CollabID != old.CollabID {
		if u.MerchantID, err = s.merchantOf(ctx, a.Scope, u.CollabID); err != nil {
			return URL{}, err
		}
	}
	if u.same(old) {
		// A change that changes nothing writes nothing: no updatedUtc bump,
		// no event, no activity entry (as collabs do).
		return old, nil
	}
	now := s.now()
	u.UpdatedAt = now
	saved, err := s.store.UpdateURL(ctx, u, func(before, after URL) *eventsv1.CallbackUrlChanged {
		return changeEvent(a, ActionUpdated, &before, &after, now)
	})
	if err != nil {
		return URL{}, fmt.Errorf("update callback url %d: %w", id, err)
	}
	return saved, nil
}

// Delete removes a callback URL; its pending deliveries are cancelled, and
// the attempts already made stay listed.
func (s *Service) Delete(ctx context.Context, a Actor, id int64) error {
	if _, err := s.visibleURL(ctx, a.Scope, id); err != nil {
		return err
	}
	now := s.now()
	err := s.store.DeleteURL(ctx, id, now, func(before URL) *eventsv1.CallbackUrlChanged {
		return changeEvent(a, ActionDeleted, &before, nil, now)
	})
	if err != nil {
		return fmt.Errorf("delete callback url %d: %w", id, err)
	}
	return nil
}

// Page is one page of attempts.
type Page struct {
	Attempts   []Attempt
	TotalCount int64
	Page       int32
	TotalPages int32
}

// Attempts returns one page of a transaction's attempts, newest first (page
// from 1, take 100 by default and at most 500). A transaction the service
// has not seen has none; one of another merchant is not found.
func (s *Service) Attempts(ctx context.Context, scope Scope, transactionID int64, page, take int32) (Page, error) {
	page = max(page, 1)
	if take <= 0 {
		take = DefaultTake
	}
	take = min(take, MaxTake)
	t, err := s.store.Transaction(ctx, transactionID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return Page{Attempts: []Attempt{}, Page: page}, nil
	}
	if err != nil {
		return Page{}, fmt.Errorf("attempts of transaction %d: %w", transactionID, err)
	}
	if !scope.Includes(t.MerchantID) {
		return Page{}, transactionNotFound(transactionID)
	}
	attempts, total, err := s.store.Attempts(ctx, transactionID, page, take)
	if err != nil {
		return Page{}, fmt.Errorf("attempts of transaction %d: %w", transactionID, err)
	}
	pages := int32((total + int64(take) - 1) / int64(take))
	return Page{Attempts: attempts, TotalCount: total, Page: page, TotalPages: pages}, nil
}

// MaxBatchTransactions is the most transactions AttemptsOfTransactions
// answers at once.
const MaxBatchTransactions = 1000

// AttemptsOfTransactions returns every attempt of up to
// MaxBatchTransactions transactions, by transaction id, then oldest first.
// It has no merchant scope: only the deployment's own services call it (the
// gateway's export worker, which chose the transactions within its caller's
// scope). Errors are invalid for no id or too many.
func (s *Service) AttemptsOfTransactions(ctx context.Context, ids []int64) ([]Attempt, error) {
	switch {
	case len(ids) == 0:
		return nil, apperr.Invalid("transactionIds must name at least one transaction.")
	case len(ids) > MaxBatchTransactions:
		return nil, apperr.Invalid("transactionIds must name at most %d transactions.", MaxBatchTransactions)
	}
	attempts, err := s.store.AttemptsOfTransactions(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("attempts of %d transactions: %w", len(ids), err)
	}
	return attempts, nil
}

// Retry queues one more attempt of a Failed attempt's delivery (past its
// max attempts if need be) and marks the attempt Retried. Other attempts,
// and attempts of transactions whose callbacks are cancelled, are refused.
func (s *Service) Retry(ctx context.Context, scope Scope, attemptID int64) (Attempt, error) {
	at, err := s.store.Attempt(ctx, attemptID)
	if err != nil {
		return Attempt{}, notFoundAs(err, msgAttempt)
	}
	if !scope.Includes(at.MerchantID) {
		return Attempt{}, apperr.NotFound(msgAttempt)
	}
	retried, err := s.store.RetryAttempt(ctx, attemptID, s.now(), func(rt RetryTarget) error {
		a := rt.Attempt
		switch {
		case a.Status != AttemptFailed:
			return apperr.FailedPrecondition("Only a failed attempt can be retried; attempt %d is %s.", a.ID, a.Status)
		case rt.Transaction.CallbacksCanceled:
			return apperr.FailedPrecondition("Callbacks of transaction %d are cancelled; its attempts cannot be retried.", rt.Transaction.ID)
		case !rt.URLActive || rt.Delivery == DeliveryCancelled:
			return apperr.FailedPrecondition("The callback URL of attempt %d was deleted or disabled; it cannot be retried.", a.ID)
		case rt.Delivery != DeliveryFailed:
			return apperr.FailedPrecondition("The delivery of attempt %d is %s; only a failed delivery can be retried.", a.ID, rt.Delivery)
		}
		return nil
	})
	if err != nil {
		return Attempt{}, notFoundAs(err, msgAttempt)
	}
	s.wake()
	return retried, nil
}

// Enqueue sends a final transaction's current outcome again to every enabled
// matching callback URL of its collab and returns how many deliveries were
// queued. A transaction the service has not seen (or of another merchant)
// is not found; one not final, or whose callbacks are cancelled, is refused.
// A call with a key (a bulk run's "bulk:<run>:<transaction>") queues its
// deliveries once: a repeated call with the same key queues none.
func (s *Service) Enqueue(ctx context.Context, scope Scope, transactionID int64, key string) (int, error) {
	t, err := s.store.Transaction(ctx, transactionID)
	if err != nil {
		return 0, notFoundAs(err, transactionNotFound(transactionID).Error())
	}
	if !scope.Includes(t.MerchantID) {
		return 0, transactionNotFound(transactionID)
	}
	eventID, err := uuid.NewV7()
	if err != nil {
		return 0, fmt.Errorf("enqueue id: %w", err)
	}
	event := "enqueue:" + eventID.String()
	if key != "" {
		event = "enqueue:" + key
	}
	n, err := s.store.Enqueue(ctx, transactionID, event, s.now(), func(t Transaction) error {
		if !Final(t.Status) {
			return apperr.FailedPrecondition("Transaction %d is not final (status %d); callbacks are sent only for a final status.", t.ID, t.Status)
		}
		if t.CallbacksCanceled {
			return apperr.FailedPrecondition("Callbacks of transaction %d are cancelled; nothing is sent.", t.ID)
		}
		return nil
	})
	if err != nil {
		return 0, notFoundAs(err, transactionNotFound(transactionID).Error())
	}
	if n > 0 {
		s.wake()
	}
	return n, nil
}

// SigningSecret returns a merchant's signing secret ("whsec_…"), making it
// on first use.
func (s *Service) SigningSecret(ctx context.Context, scope Scope, merchantID int32) (string, error) {
	if err := s.checkMerchant(ctx, scope, merchantID); err != nil {
		return "", err
	}
	k, err := s.secrets.Key(ctx, merchantID)
	if err != nil {
		return "", err
	}
	return FormatSecret(k), nil
}

// checkMerchant refuses, as not found, a merchant outside scope or one the
// gateway does not have: a signing key is made on the first read, so an
// unknown merchant would otherwise get one.
func (s *Service) checkMerchant(ctx context.Context, scope Scope, merchantID int32) error {
	if !scope.Includes(merchantID) || merchantID <= 0 {
		return apperr.NotFound(msgMerchant)
	}
	ok, err := s.merchants.Exists(ctx, merchantID)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.NotFound(msgMerchant)
	}
	return nil
}

// RotateSigningSecret replaces a merchant's signing secret and returns the
// new one; deliveries from then on are signed with it.
//
// overlapHours (nil: DefaultOverlapHours) is how long the replaced secret
// still signs beside the new one, 0 to MaxOverlapHours.
func (s *Service) RotateSigningSecret(ctx context.Context, scope Scope, merchantID int32, overlapHours *int32) (string, error) {
	overlap := int32(DefaultOverlapHours)
	if overlapHours != nil {
		if *overlapHours < 0 || *overlapHours > MaxOverlapHours {
			return "", apperr.Invalid("overlapHours must be between 0 and %d.", MaxOverlapHours)
		}
		overlap = *overlapHours
	}
	if err := s.checkMerchant(ctx, scope, merchantID); err != nil {
		return "", err
	}
	k, err := s.secrets.Rotate(ctx, merchantID, time.Duration(overlap)*time.Hour)
	if err != nil {
		return "", err
	}
	return FormatSecret(k), nil
}

// HandleTransactionEvents applies a batch of the gateway's transaction
// events (see Store.ApplyTransactionEvents) and submits the deliveries they
// call for. Unless it returns an error, it calls settle once for every
// event id of the batch: at once for an event that calls for no delivery,
// after every delivery it calls for is stored for the others (with the
// first error, when one could not be; the event should then come again).
// Applying a batch again sends nothing that was stored.
func (s *Service) HandleTransactionEvents(ctx context.Context, events []TransactionEvent, settle func(eventID string, err error)) error {
	fresh, err := s.store.ApplyTransactionEvents(ctx, events, s.now())
	if err != nil {
		return fmt.Errorf("apply %d transaction events: %w", len(events), err)
	}
	pending := map[string]*eventDeliveries{}
	for _, dl := range fresh {
		p := pending[dl.EventID]
		if p == nil {
			p = &eventDeliveries{id: dl.EventID, settle: settle}
			pending[dl.EventID] = p
		}
		p.left++
	}
	for _, ev := range events {
		if _, ok := pending[ev.EventID]; !ok {
			pending[ev.EventID] = nil
			settle(ev.EventID, nil)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	traces := make(map[string]trace.SpanContext, len(events))
	for _, ev := range events {
		traces[ev.EventID] = ev.Trace
	}
	jobs := make([]Job, len(fresh))
	for i, dl := range fresh {
		dl.Trace = traces[dl.EventID]
		jobs[i] = Job{Delivery: dl, Done: pending[dl.EventID].done}
	}
	s.queue.Submit(ctx, jobs)
	return nil
}

// eventDeliveries counts an event's deliveries not stored yet.
type eventDeliveries struct {
	id     string
	settle func(string, error)
	mu     sync.Mutex
	left   int
	err    error
}

func (e *eventDeliveries) done(err error) {
	e.mu.Lock()
	if err != nil && e.err == nil {
		e.err = err
	}
	e.left--
	last, first := e.left == 0, e.err
	e.mu.Unlock()
	if last {
		e.settle(e.id, first)
	}
}

func (s *Service) visibleURL(ctx context.Context, scope Scope, id int64) (URL, error) {
	u, err := s.store.URL(ctx, id)
	if err != nil {
		return URL{}, notFoundAs(err, msgURLNotFound)
	}
	if !scope.Includes(u.MerchantID) {
		return URL{}, apperr.NotFound(msgURLNotFound)
	}
	return u, nil
}

func (s *Service) merchantOf(ctx context.Context, scope Scope, collabID int32) (int32, error) {
	merchantID, err := s.collabs.MerchantOf(ctx, collabID)
	if err != nil {
		return 0, err
	}
	if !scope.Includes(merchantID) {
		// The gateway already answers not found outside the caller's scope;
		// this keeps the rule should it ever answer more.
		return 0, apperr.NotFound("The collab was not found.")
	}
	return merchantID, nil
}

func (s *Service) checkURL(ctx context.Context, raw string) error {
	if _, err := s.urls.CheckURL(ctx, raw); err != nil {
		if apperr.KindOf(err) == apperr.KindInvalid {
			return err
		}
		return apperr.New(apperr.KindInvalid, err, "Callback URL is not valid.")
	}
	return nil
}

// apply copies in's present fields other than the required ones' absence
// onto u and returns what is wrong with them.
func apply(u *URL, in Input) []string {
	var problems []string
	if in.CollabID != nil && *in.CollabID > 0 {
		u.CollabID = *in.CollabID
	}
	if in.URL != nil && strings.TrimSpace(*in.URL) != "" {
		u.URL = strings.TrimSpace(*in.URL)
		if len(u.URL) > MaxURLLength {
			problems = append(problems, msgURLTooLong)
		}
	}
	if in.Enabled != nil {
		u.Enabled = *in.Enabled
	}
	if in.MaxAttempts != nil {
		if *in.MaxAttempts < MinAttempts || *in.MaxAttempts > MaxAttempts {
			problems = append(problems, msgMaxAttempts)
		} else {
			u.MaxAttempts = *in.MaxAttempts
		}
	}
	if in.AddSignature != nil {
		u.AddSignature = *in.AddSignature
	}
	if in.TransactionType != nil {
		switch t := *in.TransactionType; t {
		case TypeAll, TypeCashIn, TypeCashOut:
			u.TransactionType = t
		default:
			problems = append(problems, msgType)
		}
	}
	if len(in.FinalStatuses) == 1 && in.FinalStatuses[0] == 0 {
		u.FinalStatuses = 0
	} else if len(in.FinalStatuses) > 0 {
		set, bad, ok := NewStatusSet(in.FinalStatuses)
		if ok {
			u.FinalStatuses = set
		} else {
			problems = append(problems, fmt.Sprintf("finalStatuses must list final statuses (4, -1 to -6), or be [0] for every final status; %d is not one.", bad))
		}
	}
	return problems
}

func transactionNotFound(id int64) error {
	return apperr.NotFound("Transaction %d was not found by the callbacks service.", id)
}

// notFoundAs replaces the message of a not-found error with msg.
func notFoundAs(err error, msg string) error {
	if apperr.KindOf(err) == apperr.KindNotFound {
		return apperr.New(apperr.KindNotFound, err, "%s", msg)
	}
	return err
}

// URLView is a callback URL as the API and the activity log show it.
type URLView struct {
	ID                int64        `json:"id"`
	CollabID          int32        `json:"collabId"`
	MerchantID        int32        `json:"merchantId"`
	CallbackURL       string       `json:"callbackUrl"`
	IsEnabled         bool         `json:"isEnabled"`
	MaxAttempts       int32        `json:"maxAttempts"`
	AddSignature      bool         `json:"addSignature"`
	TransactionTypeID *int32       `json:"transactionTypeId"`
	FinalStatuses     []int32      `json:"finalStatuses,omitempty"`
	Headers           []HeaderView `json:"headers,omitempty"`
	CreatedUtc        string       `json:"createdUtc"`
	UpdatedUtc        string       `json:"updatedUtc"`
}

// View returns u as the API shows it.
func (u URL) View() URLView {
	v := URLView{
		ID: u.ID, CollabID: u.CollabID, MerchantID: u.MerchantID, CallbackURL: u.URL,
		IsEnabled: u.Enabled, MaxAttempts: u.MaxAttempts, AddSignature: u.AddSignature,
		CreatedUtc: u.CreatedAt.UTC().Format(time.RFC3339Nano), UpdatedUtc: u.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}
	if u.TransactionType != TypeAll {
		t := u.TransactionType
		v.TransactionTypeID = &t
	}
	v.FinalStatuses = u.FinalStatuses.List()
	v.Headers = headerViews(u.Headers)
	return v
}

func viewJSON(u *URL) string {
	if u == nil {
		return "null"
	}
	b, err := json.Marshal(u.View())
	if err != nil {
		// A struct of strings, numbers and bools always marshals.
		return "null"
	}
	return string(b)
}

func changeEvent(a Actor, action string, before, after *URL, at time.Time) *eventsv1.CallbackUrlChanged {
	cur := after
	if cur == nil {
		cur = before
	}
	changeID, err := uuid.NewV7()
	if err != nil {
		changeID = uuid.New()
	}
	return &eventsv1.CallbackUrlChanged{
		Action: action, CallbackId: cur.ID, CollabId: cur.CollabID, MerchantId: cur.MerchantID,
		UserId: a.UserID, Username: a.Username, Ip: a.IP, UserAgent: a.UserAgent,
		OldValue: viewJSON(before), NewValue: viewJSON(after),
		ChangedAt: timestamppb.New(at), ChangeId: changeID.String(),
	}
}
