package statistics

import (
	"testing"
	"time"
)

func TestCountSegmentsOnMinutes(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	tests := []struct {
		name     string
		from, to string
		want     []Segment
	}{
		{"inside one hour", "2026-12-06T10:07:00Z", "2026-12-06T10:43:00Z",
			[]Segment{{Grain: Minute, From: at("2026-12-06T10:07:00Z"), To: at("2026-12-06T10:43:00Z")}}},
		{"minutes, hours, minutes", "2026-12-06T08:50:00Z", "2026-12-06T11:10:00Z", []Segment{
			{Grain: Minute, From: at("2026-12-06T08:50:00Z"), To: at("2026-12-06T09:00:00Z")},
			{Grain: Hour, From: at("2026-12-06T09:00:00Z"), To: at("2026-12-06T11:00:00Z")},
			{Grain: Minute, From: at("2026-12-06T11:00:00Z"), To: at("2026-12-06T11:10:00Z")}}},
		{"whole hours only", "2026-12-06T08:00:00Z", "2026-12-06T11:00:00Z", []Segment{
			{Grain: Hour, From: at("2026-12-06T08:00:00Z"), To: at("2026-12-06T11:00:00Z")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CountSegments(Range{From: at(tt.from), To: at(tt.to)})
			if len(got) != len(tt.want) {
				t.Fatalf("segments = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i].Grain != tt.want[i].Grain || !got[i].From.Equal(tt.want[i].From) || !got[i].To.Equal(tt.want[i].To) {
					t.Errorf("segment %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestPlanCashOffTheHour(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 4, 23, 13, 0, 0, time.UTC)
	to := time.Date(2026, 12, 6, 3, 51, 0, 0, time.UTC)
	p := PlanCash(Range{From: from, To: to})
	if p.Days != 0 {
		t.Fatalf("days from the cash rollup = %d, want 0 (no local midnight)", p.Days)
	}
	// Every minute of the range is in exactly one piece, of the right series day.
	covered := map[time.Time]int{}
	for _, sg := range p.Tail {
		step := time.Minute
		if sg.Grain == Hour {
			step = time.Hour
		}
		for m := sg.From; m.Before(sg.To); m = m.Add(step) {
			for k := m; k.Before(m.Add(step)); k = k.Add(time.Minute) {
				covered[k]++
				if want := int(k.Sub(from) / (24 * time.Hour)); sg.Day != want {
					t.Fatalf("%s in series day %d, want %d", k, sg.Day, want)
				}
			}
		}
	}
	if n := int(to.Sub(from) / time.Minute); len(covered) != n {
		t.Fatalf("%d minutes covered, want %d", len(covered), n)
	}
	for k, n := range covered {
		if n != 1 {
			t.Fatalf("%s read %d times", k, n)
		}
	}
}

func TestCheckMinutes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	old := now.Add(-50 * time.Hour)
	if err := CheckMinutes(Range{From: old.Truncate(time.Hour), To: now.Add(-time.Hour)}, now); err != nil {
		t.Errorf("whole hours long ago: %v", err)
	}
	if err := CheckMinutes(Range{From: old.Add(7 * time.Minute), To: now}, now); err == nil {
		t.Error("a minute start 50 hours ago was accepted")
	}
	if err := CheckMinutes(Range{From: now.Add(-47 * time.Hour).Add(3 * time.Minute), To: now.Add(-time.Minute)}, now); err != nil {
		t.Errorf("minutes within 48 hours: %v", err)
	}
}
