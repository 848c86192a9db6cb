package main

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/httpapi"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/watchlist"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/jobs/job"
)

// watchlistValuesSubject is the NATS core subject of computed watchlist
// values (outside the events stream: never stored).
const watchlistValuesSubject = "paygate.live.watchlist_values"

// valuesSubject is watchlistValuesSubject for one schema: deployments (and
// tests) that share a NATS do not see each other's values.
func valuesSubject(schema string) string { return watchlistValuesSubject + "." + schema }

// wireWatchlists serves the watchlists and alerts
// (docs/contracts-watchlists.md): the calls, the evaluator job (one replica
// recomputes the values as transactions change, raises the alerts and
// publishes the values), and the stream messages every replica forwards to
// the owners (`event: watchlist`, `event: alert`). It runs after
// wireStream, whose hub it feeds.
func (g *gateway) wireWatchlists(context.Context) error {
	store := postgres.NewWatchlists(g.Pool)
	evaluator := watchlist.NewEvaluator(store, natsValues{g.NATS, valuesSubject(g.cfg.Schema)}, time.Now, g.Log.With("component", "watchlists"))
	service := watchlist.NewService(store, time.Now, evaluator.Changed)
	g.srv.Register(&gatewayv1.WatchlistService_ServiceDesc, grpcapi.NewWatchlistServer(service))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterWatchlistServiceHandlerClient, gatewayv1.NewWatchlistServiceClient))
	g.hub.Forward(valuesSubject(g.cfg.Schema), liveValues)
	g.hub.Forward(bus.Subject(&eventsv1.AlertRaised{}), liveAlert)
	return g.Jobs.Add(job.Job{
		Name: "gateway.watchlist-evaluator",
		Description: "Recomputes the pinned watchlists as transactions change (each distinct filter and window at most once a " +
			"second, all of them every 15 s), raises an alert once per threshold crossing and sends the values to the console.",
		Continuous: true,
		Run: func(ctx context.Context, run *job.Run) error {
			var subs []*nats.Subscription
			defer func() {
				for _, s := range subs {
					_ = s.Unsubscribe()
				}
			}()
			for _, subject := range []string{bus.Subject(&eventsv1.TransactionCreated{}), bus.Subject(&eventsv1.TransactionUpdated{}),
				bus.Subject(&eventsv1.TransactionFinalized{})} {
				s, err := g.NATS.Subscribe(subject, func(m *nats.Msg) {
					if st := transactionStateOf(m.Data); st != nil {
						evaluator.Touch(st.GetMerchantId(), st.GetCollabId())
					}
				})
				if err != nil {
					return job.Failed(err, "The watchlist evaluator could not subscribe to the transaction events.")
				}
				subs = append(subs, s)
			}
			return evaluator.Run(ctx, run.Stopping())
		},
	})
}

// transactionStateOf reads the transaction state of a transaction event
// (created, updated and finalized share its first field).
func transactionStateOf(data []byte) *eventsv1.TransactionState {
	var ev eventsv1.TransactionUpdated
	if err := proto.Unmarshal(data, &ev); err != nil {
		return nil
	}
	return ev.GetTransaction()
}

// natsValues publishes computed values on its subject.
type natsValues struct {
	nc      *nats.Conn
	subject string
}

// PublishValues implements watchlist.Publisher.
func (p natsValues) PublishValues(_ context.Context, values []watchlist.Value) error {
	msg := &eventsv1.WatchlistValuesComputed{}
	for _, v := range values {
		msg.Values = append(msg.Values, &eventsv1.WatchlistLiveValue{UserId: v.UserID, Json: grpcapi.WatchlistValueJSON(v)})
	}
	data, err := proto.Marshal(msg)
	if err != nil {
		return fmt.Errorf("marshal watchlist values: %w", err)
	}
	return p.nc.Publish(p.subject, data)
}

// liveValues turns the evaluator's message into `event: watchlist` messages.
func liveValues(data []byte) []httpapi.UserMessage {
	var msg eventsv1.WatchlistValuesComputed
	if proto.Unmarshal(data, &msg) != nil {
		return nil
	}
	out := make([]httpapi.UserMessage, 0, len(msg.GetValues()))
	for _, v := range msg.GetValues() {
		out = append(out, httpapi.UserMessage{UserID: v.GetUserId(), Event: "watchlist", Data: v.GetJson()})
	}
	return out
}

// liveAlert turns an AlertRaised event into its owner's `event: alert`.
func liveAlert(data []byte) []httpapi.UserMessage {
	var ev eventsv1.AlertRaised
	if proto.Unmarshal(data, &ev) != nil {
		return nil
	}
	a := &gatewayv1.Alert{Id: ev.GetAlertId(), WatchlistId: ev.GetWatchlistId(), WatchlistName: ev.GetWatchlistName(),
		Metric: ev.GetMetric(), Comparison: ev.GetComparison(), Threshold: ev.GetThreshold(), Currency: ev.GetCurrency(),
		Value: ev.GetValue(), WindowMinutes: ev.GetWindowMinutes(), Query: ev.GetQuery(), RaisedUtc: ev.GetRaisedAt()}
	if ev.GetViewId() != 0 {
		id := ev.GetViewId()
		a.ViewId = &id
	}
	return []httpapi.UserMessage{{UserID: ev.GetUserId(), Event: "alert", Data: grpcapi.AlertJSON(a)}}
}
