package identity

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
)

// audit publishes an events.v1.UserAudited through tx's outbox: actor a did
// action to the target user, changing the before values to the after ones
// (nil for none). The values must never hold a password or a hash.
func (s *Service) audit(ctx context.Context, tx Tx, a Actor, action string, targetID int64, targetUsername string, before, after map[string]any, at time.Time) error {
	ev := &eventsv1.UserAudited{
		Id: uuid.NewString(), Action: action,
		ActorUserId: a.ID, ActorUsername: a.Username, ActorIp: a.IP,
		TargetUserId: targetID, TargetUsername: targetUsername,
		At: timestamppb.New(at),
	}
	var err error
	if ev.Before, err = auditStruct(before); err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	if ev.After, err = auditStruct(after); err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return tx.Publish(ctx, ev)
}

// auditStruct turns audited values into a Struct; nil or empty gives nil.
func auditStruct(m map[string]any) (*structpb.Struct, error) {
	if len(m) == 0 {
		return nil, nil
	}
	return structpb.NewStruct(m)
}

// userFields are the audited fields of a user, by their JSON names.
func userFields(u ManagedUser) map[string]any {
	return map[string]any{
		"username":            u.Username,
		"merchantIds":         int32List(u.MerchantIDs),
		"roleIds":             int32List(u.RoleIDs),
		"roles":               stringList(u.Roles),
		"isIpRestricted":      u.IsIPRestricted,
		"isDisabled":          u.IsDisabled,
		"isTemporaryPassword": u.IsTemporaryPassword,
		"permissions":         stringList(u.Permissions),
		"globalScope":         u.Global,
	}
}

// allowedIPFields are the audited fields of an allowed range.
func allowedIPFields(ip AllowedIP) map[string]any {
	return map[string]any{
		"id": ip.ID, "name": ip.Name, "fromIP": ip.From.String(), "toIP": ip.To.String(),
	}
}

// diffFields keeps the fields whose values differ between before and after.
func diffFields(before, after map[string]any) (map[string]any, map[string]any) {
	b, a := map[string]any{}, map[string]any{}
	for k, v := range after {
		if old, ok := before[k]; !ok || !reflect.DeepEqual(old, v) {
			a[k] = v
			if ok {
				b[k] = old
			}
		}
	}
	for k, v := range before {
		if _, ok := after[k]; !ok {
			b[k] = v
		}
	}
	return b, a
}

// StringList makes audited values of a list of strings (structpb takes
// []any only).
func StringList(ss []string) []any { return stringList(ss) }

func int32List(ids []int32) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

func stringList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
