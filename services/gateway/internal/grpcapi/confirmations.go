package grpcapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/credential"
	"github.com/paygate/paygate/services/gateway/internal/fee"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/settings"
	"github.com/paygate/paygate/services/internal/sensitive"
	"github.com/paygate/paygate/services/internal/stepup"
)

// Sensitive changes (docs/contracts-approvals.md): the observers that read
// the current values of a change's target for stepup (what the requester
// signs and what must still hold when the change is applied, one read per
// call), and the interceptor that puts the applied confirmation on the
// change's activity entry.

// The gateway's sensitive methods, as sensitive.Catalogue names them.
const (
	MethodSetTransactionStatus       = "/paygate.gateway.v1.TransactionService/SetTransactionStatus"
	MethodCancelTransaction          = "/paygate.gateway.v1.TransactionService/CancelTransaction"
	MethodCancelTransactionCallbacks = "/paygate.gateway.v1.TransactionService/CancelTransactionCallbacks"
	MethodSetCredentials             = "/paygate.gateway.v1.CredentialService/SetCredentials"
	MethodUpdateFee                  = "/paygate.gateway.v1.FeeService/UpdateFee"
	MethodDeleteFee                  = "/paygate.gateway.v1.FeeService/DeleteFee"
	MethodSetCollabActiveness        = "/paygate.gateway.v1.CollabService/SetCollabActiveness"
	MethodSetProviderActiveness      = "/paygate.gateway.v1.CollabService/SetProviderActiveness"
	MethodSetSetting                 = "/paygate.gateway.v1.SettingService/SetSetting"
	MethodEnableMaintenance          = "/paygate.gateway.v1.MaintenanceService/EnableMaintenanceMode"
	MethodDisableMaintenance         = "/paygate.gateway.v1.MaintenanceService/DisableMaintenanceMode"
	MethodEnableMaintenanceOld       = "/paygate.gateway.v1.CollabService/EnableMaintenanceMode"
	MethodDisableMaintenanceOld      = "/paygate.gateway.v1.CollabService/DisableMaintenanceMode"
)

type idRequest interface{ GetId() int64 }

type collabRequest interface{ GetCollabId() int32 }

// ObserveTransaction observes a transaction's status, amount and currency
// (the amount is what approval thresholds compare), for the status override
// and the cancellation.
func ObserveTransaction(payments *payment.Service) stepup.Observer {
	return func(ctx context.Context, req proto.Message) (map[string]any, error) {
		t, err := observedTransaction(ctx, payments, req)
		if err != nil {
			return nil, err
		}
		return map[string]any{"status": int(t.Status), "amount": t.Amount.String(), "currency": t.Currency}, nil
	}
}

// ObserveTransactionStatus observes a transaction's status only (cancelling
// its callbacks).
func ObserveTransactionStatus(payments *payment.Service) stepup.Observer {
	return func(ctx context.Context, req proto.Message) (map[string]any, error) {
		t, err := observedTransaction(ctx, payments, req)
		if err != nil {
			return nil, err
		}
		return map[string]any{"status": int(t.Status)}, nil
	}
}

func observedTransaction(ctx context.Context, payments *payment.Service, req proto.Message) (payment.Transaction, error) {
	r, ok := req.(idRequest)
	if !ok {
		return payment.Transaction{}, fmt.Errorf("observe transaction: %T has no id", req)
	}
	scope, err := callerScope(ctx)
	if err != nil {
		return payment.Transaction{}, err
	}
	return payments.Get(ctx, scope, r.GetId())
}

// ObserveFee observes a fee's current values (changing or deleting it).
func ObserveFee(fees *fee.Service) stepup.Observer {
	return func(ctx context.Context, req proto.Message) (map[string]any, error) {
		r, ok := req.(idRequest)
		if !ok {
			return nil, fmt.Errorf("observe fee: %T has no id", req)
		}
		_, viewer, err := feeCaller(ctx)
		if err != nil {
			return nil, err
		}
		f, err := fees.Get(ctx, viewer, r.GetId())
		if err != nil {
			return nil, err
		}
		return fee.Values(f), nil
	}
}

// ObserveCollab observes a collab's switch (isEnabled).
func ObserveCollab(collabs *collab.Service) stepup.Observer {
	return func(ctx context.Context, req proto.Message) (map[string]any, error) {
		r, ok := req.(collabRequest)
		if !ok {
			return nil, fmt.Errorf("observe collab: %T has no collab id", req)
		}
		scope, err := callerScope(ctx)
		if err != nil {
			return nil, err
		}
		c, err := collabs.Collab(ctx, scope, r.GetCollabId())
		if err != nil {
			return nil, err
		}
		return map[string]any{"isEnabled": c.Settings.IsEnabled}, nil
	}
}

// ObserveProvider observes a provider's switch (isEnabled); an unknown
// provider has no observed values (the handler answers it).
func ObserveProvider(collabs *collab.Service) stepup.Observer {
	return func(ctx context.Context, req proto.Message) (map[string]any, error) {
		r, ok := req.(*gatewayv1.SetProviderActivenessRequest)
		if !ok {
			return nil, fmt.Errorf("observe provider: %T", req)
		}
		ps, err := collabs.Providers(ctx)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(ps, func(p collab.Provider) bool { return p.ID == r.GetProviderId() })
		if i < 0 {
			return nil, nil
		}
		return map[string]any{"isEnabled": ps[i].IsEnabled}, nil
	}
}

// ObserveSetting observes a setting's value in force.
func ObserveSetting(s *settings.Service) stepup.Observer {
	return func(ctx context.Context, req proto.Message) (map[string]any, error) {
		r, ok := req.(*gatewayv1.SetSettingRequest)
		if !ok {
			return nil, fmt.Errorf("observe setting: %T", req)
		}
		st, err := s.Get(ctx, r.GetKey())
		if err != nil {
			return nil, err
		}
		v := st.Value
		if v == nil {
			v = json.RawMessage("null")
		}
		return map[string]any{"value": v}, nil
	}
}

// ObserveMaintenance observes the maintenance switch (isEnabled).
func ObserveMaintenance(m *maintenance.Service) stepup.Observer {
	return func(ctx context.Context, _ proto.Message) (map[string]any, error) {
		on, err := m.Enabled(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"isEnabled": on}, nil
	}
}

// ObserveCredentials observes a collab's credentials as a digest (the
// SHA-256 of their JSON, keys sorted): never the values.
func ObserveCredentials(creds *credential.Service) stepup.Observer {
	return func(ctx context.Context, req proto.Message) (map[string]any, error) {
		r, ok := req.(collabRequest)
		if !ok {
			return nil, fmt.Errorf("observe credentials: %T has no collab id", req)
		}
		actor, err := actorOf(ctx)
		if err != nil {
			return nil, err
		}
		c, err := creds.Get(ctx, actor, r.GetCollabId())
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("observe credentials: %w", err)
		}
		sum := sha256.Sum256(b)
		return map[string]any{"credentials": "sha256:" + hex.EncodeToString(sum[:])}, nil
	}
}

// JournalTx runs fn in a store transaction whose journal takes activity
// entries.
type JournalTx func(ctx context.Context, fn func(activity.Journal) error) error

// ConfirmedActivity returns the interceptor, placed after stepup's, that
// makes the activity entry of a confirmed sensitive change carry the
// confirmation's id, reason and proofs: the change's own entry, written in
// the change's transaction (activity.Record reads the context), or, for a
// change that writes none (a transaction's status), an entry "Sensitive
// action performed: …" written right after the change with the described
// values. A failure to write that entry is logged: the change is applied
// and its proofs are in used_confirmations.
func ConfirmedActivity(tx JournalTx, now func() time.Time, log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		c, ok := stepup.FromContext(ctx)
		if !ok {
			return handler(ctx, req)
		}
		a, _ := sensitive.ByMethod(info.FullMethod)
		proofs := c.Proofs
		if proofs == nil {
			proofs = []sensitive.Proof{}
		}
		raw, err := json.Marshal(proofs)
		if err != nil {
			return nil, fmt.Errorf("marshal proofs: %w", err)
		}
		ctx, slot := activity.WithConfirmation(ctx, activity.Confirmation{ID: c.ID, Action: a.Name, Reason: stepup.Reason(c), Proofs: raw})
		resp, err := handler(ctx, req)
		if err != nil || slot.Recorded() {
			return resp, err
		}
		if werr := recordConfirmed(ctx, tx, now, a, c, resp); werr != nil {
			log.ErrorContext(ctx, "write the activity entry of a confirmed change", "method", info.FullMethod,
				"confirmation_id", c.ID, "error", werr)
		}
		return resp, nil
	}
}

func recordConfirmed(ctx context.Context, tx JournalTx, now func() time.Time, a sensitive.Action, c *sensitive.Claims, resp any) error {
	actor, err := actorOf(ctx)
	if err != nil {
		return err
	}
	d, err := sensitive.Parse([]byte(c.Action))
	if err != nil {
		return err
	}
	e := activity.Entry{ActionType: activity.ActionSensitive, SensitiveActionName: a.Name, Count: 1,
		Message:  fmt.Sprintf("%s: %s%s.", activity.SensitiveMarker, a.Title, targetText(d.Targets)),
		OldValue: activity.Value(d.Observed), NewValue: activity.Value(d.Values)}
	if d.Observed == nil {
		e.OldValue = nil
	}
	if r, ok := resp.(interface{ GetTransaction() *gatewayv1.Transaction }); ok && r.GetTransaction() != nil {
		t := r.GetTransaction()
		e.MerchantID, e.CollabID, e.MerchantName = t.GetMerchantId(), t.GetCollabId(), t.GetMerchantName()
		e.ProviderID, e.ProviderName = t.GetProviderId(), t.GetProviderName()
	}
	return tx(ctx, func(j activity.Journal) error {
		return activity.Record(ctx, j, actor, e, now().UTC().Truncate(time.Microsecond))
	})
}

// targetText names a change's targets: " (id 12)".
func targetText(targets map[string]any) string {
	if len(targets) == 0 {
		return ""
	}
	keys := make([]string, 0, len(targets))
	for k := range targets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %v", k, targets[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
