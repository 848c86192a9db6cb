package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	aggnats "github.com/paygate/paygate/services/aggregator/internal/nats"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

// jobStats returns the stats of job, or nil when it is not listed.
func jobStats(t *testing.T, s *service, job string) map[string]any {
	t.Helper()
	code, body := get(t, s, admin(t), http.MethodGet, "/api/v1/jobs/stats", "")
	if code != http.StatusOK {
		t.Fatalf("GET /api/v1/jobs/stats: %d %v", code, body)
	}
	j, _ := body[job].(map[string]any)
	return j
}

// waitJob waits until the stats of job satisfy ok, and returns them.
func waitJob(t *testing.T, s *service, job, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		j := jobStats(t, s, job)
		if j != nil && ok(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s never %s: %v", job, what, j)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func notes(run string, from time.Time, n int) []*eventsv1.JobNotification {
	out := make([]*eventsv1.JobNotification, n)
	for i := range out {
		out[i] = &eventsv1.JobNotification{Level: int32(i % 6), At: timestamppb.New(from.Add(time.Duration(i) * time.Millisecond)),
			Message: fmt.Sprintf("%s note %d", run, i)}
	}
	return out
}

// TestJobStats drives one job through its events as a service's jobs
// package publishes them and checks what GET /api/v1/jobs/stats shows.
func TestJobStats(t *testing.T) {
	s := start(t)
	job := "test.job-" + randomHex(4)
	const svc = "testsvc"
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	interval := int64(60_000)

	s.publish(t, &eventsv1.JobRegistered{Job: job, Service: svc, Instance: "i1", Description: "A test job.",
		IntervalMs: interval, StartedAt: timestamppb.New(t0)})
	j := waitJob(t, s, job, "listed", func(j map[string]any) bool { return true })
	if j["running"] != false || num(j["totalRunsSinceStartup"]) != 0 || j["enabled"] != true || j["service"] != svc ||
		j["lastRunStartedUtc"] != nil || num(j["intervalMs"]) != interval {
		t.Errorf("registered: %v", j)
	}

	run := func(id string, startAt time.Time) {
		s.publish(t, &eventsv1.JobRunStarted{Job: job, Service: svc, Instance: "i1", RunId: id, StartedAt: timestamppb.New(startAt)})
	}
	complete := func(id string, startAt time.Time, n int) *eventsv1.JobRunCompleted {
		ev := &eventsv1.JobRunCompleted{Job: job, Service: svc, Instance: "i1", RunId: id, StartedAt: timestamppb.New(startAt),
			CompletedAt: timestamppb.New(startAt.Add(time.Second)), NextRunExpectedAt: timestamppb.New(time.Now().Add(time.Hour)),
			Notifications: notes(id, startAt, n), Runs: 1}
		s.publish(t, ev)
		return ev
	}

	r1 := t0.Add(time.Minute)
	run("r1", r1)
	waitJob(t, s, job, "running", func(j map[string]any) bool { return j["running"] == true })
	c1 := complete("r1", r1, 30)
	j = waitJob(t, s, job, "done with r1", func(j map[string]any) bool { return num(j["totalRunsSinceStartup"]) == 1 })
	if j["running"] != false || j["lastRunCompletedUtc"] != c1.CompletedAt.AsTime().UTC().Format("2006-01-02T15:04:05Z") && j["lastRunCompletedUtc"] == nil {
		t.Errorf("after r1: %v", j)
	}
	if ns := j["lastRunNotifications"].([]any); len(ns) != 30 || ns[0].(map[string]any)["message"] != "r1 note 29" {
		t.Errorf("after r1: %d notifications, first %v", len(ns), ns[0])
	}

	r2 := r1.Add(time.Minute)
	run("r2", r2)
	c2 := complete("r2", r2, 30)
	j = waitJob(t, s, job, "done with r2", func(j map[string]any) bool { return num(j["totalRunsSinceStartup"]) == 2 })
	ns := j["lastRunNotifications"].([]any)
	if len(ns) != 50 {
		t.Fatalf("%d notifications kept, want 50", len(ns))
	}
	var msgs []string
	for _, n := range ns {
		msgs = append(msgs, n.(map[string]any)["message"].(string))
	}
	want := []string{}
	for i := 29; i >= 0; i-- {
		want = append(want, fmt.Sprintf("r2 note %d", i))
	}
	for i := 29; i >= 10; i-- {
		want = append(want, fmt.Sprintf("r1 note %d", i))
	}
	if !slices.Equal(msgs, want) {
		t.Errorf("notifications = %v, want newest first %v", msgs, want)
	}

	r3 := r2.Add(time.Minute)
	run("r3", r3)
	failed := &eventsv1.JobRunFailed{Job: job, Service: svc, Instance: "i1", RunId: "r3", StartedAt: timestamppb.New(r3),
		CompletedAt: timestamppb.New(r3.Add(time.Second)), NextRunExpectedAt: timestamppb.New(time.Now().Add(time.Hour)),
		Error: "The provider did not answer."}
	s.publish(t, failed)
	j = waitJob(t, s, job, "failed", func(j map[string]any) bool { return num(j["totalRunsSinceStartup"]) == 3 })
	if j["lastRunError"] != "The provider did not answer." || j["running"] != false || j["stale"] != false {
		t.Errorf("after a failed run: %v", j)
	}

	// A redelivery of every run event counts nothing twice: markers after
	// them on the same subjects show they were read.
	run("r1", r1)
	s.publish(t, c1)
	s.publish(t, c2)
	s.publish(t, failed)
	r4 := r3.Add(time.Minute)
	run("r4", r4)
	complete("r4", r4, 1)
	r5 := r4.Add(time.Minute)
	s.publish(t, &eventsv1.JobRunFailed{Job: job, Service: svc, RunId: "r5", StartedAt: timestamppb.New(r5),
		CompletedAt: timestamppb.New(r5.Add(time.Second)), NextRunExpectedAt: timestamppb.New(time.Now().Add(time.Hour)), Error: "Again."})
	j = waitJob(t, s, job, "done with r5", func(j map[string]any) bool { return j["lastRunError"] == "Again." })
	waitJob(t, s, job, "done with r4", func(j map[string]any) bool { return num(j["totalRunsSinceStartup"]) >= 5 })
	time.Sleep(300 * time.Millisecond)
	if j = jobStats(t, s, job); num(j["totalRunsSinceStartup"]) != 5 {
		t.Errorf("after a redelivery: %d runs, want 5", num(j["totalRunsSinceStartup"]))
	}

	// A newer process registering resets the runs since startup; an older
	// one does not.
	s.publish(t, &eventsv1.JobRegistered{Job: job, Service: svc, Instance: "i2", IntervalMs: interval, StartedAt: timestamppb.New(r5.Add(time.Minute))})
	waitJob(t, s, job, "reset", func(j map[string]any) bool { return num(j["totalRunsSinceStartup"]) == 0 })

	// Stale: the next run was expected more than two intervals ago.
	r6 := r5.Add(2 * time.Minute)
	s.publish(t, &eventsv1.JobRunCompleted{Job: job, Service: svc, RunId: "r6", StartedAt: timestamppb.New(r6),
		CompletedAt: timestamppb.New(r6.Add(time.Second)), NextRunExpectedAt: timestamppb.New(time.Now().Add(-2*time.Minute - time.Second)), Runs: 1})
	j = waitJob(t, s, job, "stale", func(j map[string]any) bool { return j["stale"] == true })
	if j["lastRunError"] != "" || num(j["totalRunsSinceStartup"]) != 1 {
		t.Errorf("after a completed run: %v", j)
	}
	r7 := r6.Add(time.Minute)
	s.publish(t, &eventsv1.JobRunCompleted{Job: job, Service: svc, RunId: "r7", StartedAt: timestamppb.New(r7),
		CompletedAt: timestamppb.New(r7.Add(time.Second)), NextRunExpectedAt: timestamppb.New(time.Now().Add(-2*time.Minute + 10*time.Second)), Runs: 1})
	waitJob(t, s, job, "not stale within two intervals", func(j map[string]any) bool {
		return num(j["totalRunsSinceStartup"]) == 2 && j["stale"] == false
	})
}

// TestSetJobEnabled switches a job off and on through the API and checks
// the paygate_jobs KV bucket and the stats.
func TestSetJobEnabled(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	job := "test.job-" + randomHex(4)
	kv, err := s.js.KeyValue(ctx, aggnats.FlagsBucket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kv.Purge(context.Background(), job) })
	s.publish(t, &eventsv1.JobRegistered{Job: job, Service: "testsvc", IntervalMs: 1000, StartedAt: timestamppb.Now()})
	waitJob(t, s, job, "listed", func(map[string]any) bool { return true })
	path := "/api/v1/jobs/" + job + "/enabled"

	flag := func() string {
		e, err := kv.Get(ctx, job)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(e.Value())
	}
	for _, on := range []bool{false, true} {
		code, body := get(t, s, admin(t), http.MethodPost, path, fmt.Sprintf(`{"enabled": %v}`, on))
		if code != http.StatusOK || body["enabled"] != on { // the response body is the job
			t.Fatalf("enabled=%v: %d %v", on, code, body)
		}
		want := map[bool]string{false: "off", true: "on"}[on]
		if got := flag(); got != want {
			t.Errorf("KV %s = %q, want %q", job, got, want)
		}
		if j := jobStats(t, s, job); j["enabled"] != on {
			t.Errorf("stats enabled = %v, want %v", j["enabled"], on)
		}
	}

	if code, body := get(t, s, admin(t), http.MethodPost, "/api/v1/jobs/test.no-such-job-"+randomHex(4)+"/enabled", `{"enabled": false}`); code != http.StatusNotFound {
		t.Errorf("unknown job: %d %v", code, body)
	}
	// Switching a job needs access.ReqChangeJobs: admin-wide with Jobs
	// Access and Settings Access. Support holds Jobs Access only; a
	// merchant-scoped role never meets it, whatever it holds.
	support := user{issuer.Token(t, authztest.User{ID: 3, Username: "support", Roles: []string{access.RoleSupport},
		Permissions: access.BuiltInRoles[1].Permissions})}
	for _, u := range []user{support, merchantUser(t, []string{access.PermJobsAccess, access.PermSettingsAccess}, 1)} {
		if code, body := get(t, s, u, http.MethodPost, path, `{"enabled": false}`); code != http.StatusForbidden {
			t.Errorf("non-admin: %d %v", code, body)
		}
	}
	if got := flag(); got != "on" {
		t.Errorf("a refused call changed the flag to %q", got)
	}
	if code, _ := get(t, s, merchantUser(t, []string{access.PermGetTransactions}, 1), http.MethodGet, "/api/v1/jobs/stats", ""); code != http.StatusForbidden {
		t.Errorf("stats without Jobs Access: %d", code)
	}
}
