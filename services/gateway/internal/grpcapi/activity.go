package grpcapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/datefilter"
)

// activityServer serves ActivityService: the activity log, the Providers
// page's Recent Actions (docs/contracts-providers.md).
type activityServer struct {
	gatewayv1.UnimplementedActivityServiceServer
	log *activity.Log
}

var _ gatewayv1.ActivityServiceServer = (*activityServer)(nil)

// NewActivityServer returns the ActivityService implementation.
func NewActivityServer(log *activity.Log) gatewayv1.ActivityServiceServer {
	return &activityServer{log: log}
}

// ListMerchantCollabActivity implements gatewayv1.ActivityServiceServer.
func (s *activityServer) ListMerchantCollabActivity(ctx context.Context, req *gatewayv1.ActivityServiceListMerchantCollabActivityRequest) (*gatewayv1.ActivityServiceListMerchantCollabActivityResponse, error) {
	if req.GetMerchantId() <= 0 {
		return nil, apperr.NotFound("The merchant was not found.")
	}
	data, err := s.activity(ctx, req.GetMerchantId(), req.GetFrom(), req.GetTo(), req.GetLimit(), req.CollabId)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ActivityServiceListMerchantCollabActivityResponse{Status: "success", Data: data}, nil
}

// ListCollabActivity implements gatewayv1.ActivityServiceServer.
func (s *activityServer) ListCollabActivity(ctx context.Context, req *gatewayv1.ActivityServiceListCollabActivityRequest) (*gatewayv1.ActivityServiceListCollabActivityResponse, error) {
	data, err := s.activity(ctx, 0, req.GetFrom(), req.GetTo(), req.GetLimit(), req.CollabId)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ActivityServiceListCollabActivityResponse{Status: "success", Data: data}, nil
}

// activity reads the entries the caller may see of one merchant (0: of
// every merchant in the caller's scope) within the query's bounds.
func (s *activityServer) activity(ctx context.Context, merchantID int32, from, to string, limit int32, collabID *int32) (*gatewayv1.ActivityData, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	r := activity.Request{MerchantID: merchantID, Limit: int(limit)}
	if collabID != nil {
		if *collabID <= 0 {
			return nil, apperr.Invalid("collabId must be a positive number.")
		}
		r.CollabID = *collabID
	}
	if r.From, err = parseTime("from", from); err != nil {
		return nil, err
	}
	if r.To, err = parseTime("to", to); err != nil {
		return nil, err
	}
	entries, err := s.log.List(ctx, scope, r)
	if err != nil {
		return nil, err
	}
	return activityToProto(entries)
}

// parseTime reads an RFC 3339 query value; empty is the zero time. A value
// longer than the list filters' bound is refused unread, and a date out of
// datefilter's range is refused like the other lists' dates.
func parseTime(name, v string) (time.Time, error) {
	if tooLong, _ := payment.LongFilters(payment.TextFilter{Name: name, Text: v}); len(tooLong) > 0 {
		return time.Time{}, apperr.Invalid("%s.", tooLong[0])
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, apperr.Invalid("%s must be a time in RFC 3339 form, such as 2025-11-22T08:00:00Z, not %q.", name, v)
	}
	if !datefilter.In(t) {
		return time.Time{}, apperr.Invalid("%s.", datefilter.Problem(name))
	}
	return t, nil
}

// activityMessage is the JSON message of one activity entry, with the key
// spelling the console reads.
type activityMessage struct {
	Timestamp           string  `json:"timestamp"`
	Message             string  `json:"Message"`
	SensitiveActionName string  `json:"SensitiveActionName"`
	ActionType          string  `json:"ActionType"`
	UserID              *string `json:"UserId"`
	Username            string  `json:"Username"`
	IP                  string  `json:"IP"`
	CollabID            *int32  `json:"CollabId"`
	ProviderID          *int32  `json:"ProviderId"`
	MerchantID          *int32  `json:"MerchantId"`
	MerchantName        string  `json:"MerchantName"`
	ProviderName        string  `json:"ProviderName"`
	UserAgent           string  `json:"UserAgent"`
	OldValue            *string `json:"OldValue"`
	NewValue            *string `json:"NewValue"`
	Reason              string  `json:"Reason"`
	Count               int32   `json:"Count"`
	ChannelName         string  `json:"ChannelName"`
	PayTypeID           *int32  `json:"PayTypeId"`
	PayTypeName         string  `json:"PayTypeName"`
	PayTypeCode         string  `json:"PayTypeCode"`
	// ConfirmationId and Proofs: the confirmation a sensitive change was
	// applied with and its proofs (docs/contracts-approvals.md), absent
	// for other entries.
	ConfirmationID string          `json:"ConfirmationId,omitempty"`
	Proofs         json.RawMessage `json:"Proofs,omitempty"`
}

func optionalID(id int32) *int32 {
	if id == 0 {
		return nil
	}
	return &id
}

func optionalJSON(v []byte) *string {
	if v == nil {
		return nil
	}
	s := string(v)
	return &s
}

// activityToProto builds the activity answer: one stream per entry, in the
// order given (newest first), and the counts over them.
func activityToProto(entries []activity.Entry) (*gatewayv1.ActivityData, error) {
	data := &gatewayv1.ActivityData{ResultType: "streams", Result: make([]*gatewayv1.ActivityStream, 0, len(entries))}
	for _, a := range entries {
		msg := activityMessage{
			Timestamp:           a.At.UTC().Format(time.RFC3339Nano),
			Message:             a.Message,
			SensitiveActionName: a.SensitiveActionName,
			ActionType:          string(a.ActionType),
			Username:            a.Username,
			IP:                  a.IP,
			CollabID:            optionalID(a.CollabID),
			ProviderID:          optionalID(a.ProviderID),
			MerchantID:          optionalID(a.MerchantID),
			MerchantName:        a.MerchantName,
			ProviderName:        a.ProviderName,
			UserAgent:           a.UserAgent,
			OldValue:            optionalJSON(a.OldValue),
			NewValue:            optionalJSON(a.NewValue),
			Reason:              a.Reason,
			Count:               a.Count,
			ChannelName:         a.Channel,
			PayTypeID:           optionalID(a.PayTypeID),
			PayTypeName:         a.PayTypeName,
			PayTypeCode:         a.PayTypeCode,
			ConfirmationID:      a.ConfirmationID,
			Proofs:              a.Proofs,
		}
		if a.UserID != 0 {
			id := strconv.FormatInt(a.UserID, 10)
			msg.UserID = &id
		}
		b, err := json.Marshal(msg)
		if err != nil {
			return nil, fmt.Errorf("marshal activity %d: %w", a.ID, err)
		}
		labels := map[string]string{"action": string(a.ActionType)}
		for k, v := range map[string]int32{"merchantId": a.MerchantID, "providerId": a.ProviderID, "collabId": a.CollabID} {
			if v != 0 {
				labels[k] = strconv.Itoa(int(v))
			}
		}
		value := &structpb.ListValue{Values: []*structpb.Value{
			structpb.NewStringValue(strconv.FormatInt(a.At.UnixNano(), 10)),
			structpb.NewStringValue(string(b)),
		}}
		data.Result = append(data.Result, &gatewayv1.ActivityStream{Stream: labels, Values: []*structpb.ListValue{value}})
	}
	st := activity.StatsOf(entries)
	data.Stats = &gatewayv1.ActivityStats{
		Total: int32(st.Total), User: int32(st.User), System: int32(st.System),
		Critical: int32(st.Critical), Sensitive: int32(st.Sensitive),
	}
	return data, nil
}
