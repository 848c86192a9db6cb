package statistics

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestDecomposeCoversEveryHourOnce walks every hour of random ranges of up
// to 366 days starting at a random local midnight and checks that exactly
// one segment holds it, that no segment reaches outside the range, and that
// every segment is on its grain's boundaries.
func TestDecomposeCoversEveryHourOnce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 14))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 300 {
		off := MinOffset + rng.IntN(MaxOffset-MinOffset+1)
		from := base.AddDate(0, 0, rng.IntN(800)).Add(-time.Duration(off) * time.Hour)
		// Whole local days, or any whole hour up to 366 days.
		to := from.AddDate(0, 0, 1+rng.IntN(366))
		if i%3 == 0 {
			to = from.Add(time.Duration(1+rng.IntN(366*24)) * time.Hour)
		}
		for _, months := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d/%v", i, months), func(t *testing.T) {
				t.Parallel()
				segs := Decompose(from, to, months)
				for _, s := range segs {
					if !s.From.Before(s.To) || s.From.Before(from) || s.To.After(to) {
						t.Fatalf("segment %v outside [%v, %v) or empty", s, from, to)
					}
					if s.Grain != Hour && (!s.Grain.Bucket(s.From).Equal(s.From) || !s.Grain.Bucket(s.To).Equal(s.To)) {
						t.Fatalf("segment %v not on its grain's boundaries", s)
					}
					if s.Grain == Month && !months {
						t.Fatalf("month segment %v though months are off", s)
					}
				}
				for h := from; h.Before(to); h = h.Add(time.Hour) {
					n := 0
					for _, s := range segs {
						if !h.Before(s.From) && h.Before(s.To) {
							n++
						}
					}
					if n != 1 {
						t.Fatalf("[%v, %v): hour %v in %d segments (%v)", from, to, h, n, segs)
					}
				}
			})
		}
	}
}

// TestDecomposeReadsFewRows checks the point of it: a year at any offset
// is at most a few segments, with at most 2 × 23 edge hours.
func TestDecomposeReadsFewRows(t *testing.T) {
	t.Parallel()
	for _, off := range Offsets {
		from := time.Date(2025, 3, 1, 0, 0, 0, 0, time.FixedZone("", off*3600))
		segs := Decompose(from, from.AddDate(0, 0, 365), true)
		hours := 0
		for _, s := range segs {
			if s.Grain == Hour {
				hours += int(s.To.Sub(s.From) / time.Hour)
			}
		}
		if len(segs) > 5 || hours > 46 {
			t.Errorf("UTC%+d: %d segments, %d hours", off, len(segs), hours)
		}
	}
}

func TestOffsetOf(t *testing.T) {
	t.Parallel()
	for _, off := range Offsets {
		midnight := time.Date(2026, 5, 17, 0, 0, 0, 0, time.FixedZone("", off*3600))
		got := OffsetOf(midnight)
		// 12:00 UTC is the midnight of both UTC-12 and UTC+12.
		if got != off && !(off == 12 && got == -12) {
			t.Errorf("OffsetOf(%v) = %d, want %d", midnight, got, off)
		}
		if !LocalDay(midnight, got).Add(-time.Duration(got) * time.Hour).Equal(midnight) {
			t.Errorf("LocalDay(%v, %d) does not start at that instant", midnight, got)
		}
	}
}

func TestPlanCash(t *testing.T) {
	t.Parallel()
	zone := time.FixedZone("", 8*3600)
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, zone)
	p := PlanCash(Range{From: from.UTC(), To: from.AddDate(0, 0, 365).UTC()})
	if p.Offset != 8 || p.Days != 365 || len(p.Tail) != 0 || !p.FirstDay.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("year in UTC+8: %+v", p)
	}
	p = PlanCash(Range{From: from.UTC(), To: from.Add(50 * time.Hour).UTC()})
	if p.Days != 2 || len(p.Tail) != 1 || !p.Tail[0].From.Equal(from.Add(48*time.Hour)) || !p.Tail[0].To.Equal(from.Add(50*time.Hour)) {
		t.Errorf("50 hours: %+v", p)
	}
}

func state(status int32, created time.Time, amount string) State {
	return State{ID: 1, Version: 1, CreatedAt: created, MerchantID: 7, CollabID: 70, ProviderID: 3,
		Status: status, Type: TypeDeposit, Currency: "PHP", Amount: amount}
}

// TestDeltasMove checks that a transition subtracts the old state's row and
// adds the new one's, and that a move that changes no key leaves nothing.
func TestDeltasMove(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 2, 28, 23, 30, 0, 0, time.UTC)
	old := state(StatusPending, created, "10.50")
	now := state(StatusSuccess, created, "10.50")
	for _, g := range Grains {
		d := NewDeltas(g)
		d.Move(nil, old)
		d.Move(&old, now)
		rows := d.Rows()
		if len(rows) != 1 || rows[0].Status != StatusSuccess || rows[0].N != 1 || rows[0].Amount != "10.5" ||
			!rows[0].Bucket.Equal(g.Bucket(created)) {
			t.Errorf("grain %d: created then success = %+v", g, rows)
		}
		d = NewDeltas(g)
		d.Move(&now, state(-3, created, "10.50"))
		rows = d.Rows()
		if len(rows) != 2 || rows[0].Status != -3 || rows[0].N != 1 || rows[1].Status != StatusSuccess || rows[1].N != -1 || rows[1].Amount != "-10.5" {
			t.Errorf("grain %d: override to failed = %+v", g, rows)
		}
		d = NewDeltas(g)
		d.Move(&now, now)
		if rows := d.Rows(); len(rows) != 0 {
			t.Errorf("grain %d: same key moved = %+v", g, rows)
		}
	}
}

// TestCashDeltasMove checks the cash rollup's rows: one per offset on the
// local day of that offset, only for successful states.
func TestCashDeltasMove(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 2, 28, 23, 30, 0, 0, time.UTC)
	pending := state(StatusPending, created, "10.50")
	success := state(StatusSuccess, created, "10.50")

	d := NewCashDeltas()
	d.Move(nil, pending)
	if rows := d.Rows(); len(rows) != 0 {
		t.Fatalf("a pending transaction has cash rows: %+v", rows)
	}
	d.Move(&pending, success)
	rows := d.Rows()
	if len(rows) != len(Offsets) {
		t.Fatalf("entering success: %d rows, want %d", len(rows), len(Offsets))
	}
	for i, r := range rows {
		off := Offsets[i]
		wantDay := time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC)
		if off >= 1 { // 23:30 UTC is already March 1 from UTC+1 on
			wantDay = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		}
		if r.Offset != off || !r.LocalDay.Equal(wantDay) || !r.UTCDay.Equal(time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC)) ||
			r.N != 1 || r.Amount != "10.5" || r.MerchantID != 7 || r.Type != TypeDeposit || r.Currency != "PHP" {
			t.Errorf("row %d = %+v, want offset %d on %v", i, r, off, wantDay)
		}
	}

	// Leaving success (an override) takes the rows back in every offset.
	d = NewCashDeltas()
	d.Move(&success, state(-3, created, "10.50"))
	rows = d.Rows()
	if len(rows) != len(Offsets) {
		t.Fatalf("leaving success: %d rows", len(rows))
	}
	for _, r := range rows {
		if r.N != -1 || r.Amount != "-10.5" {
			t.Errorf("leaving success: %+v", r)
		}
	}

	// A batch that makes and finalizes a transaction adds it once; one that
	// moves it between failures adds nothing.
	d = NewCashDeltas()
	d.Move(nil, pending)
	d.Move(&pending, success)
	failed := state(-3, created, "10.50")
	d.Move(&success, failed)
	d.Move(&failed, state(StatusCancelled, created, "10.50"))
	if rows := d.Rows(); len(rows) != 0 {
		t.Errorf("success then override: %+v", rows)
	}
}

// TestCashDeltasMerge checks that transactions of the same key merge into
// one row per offset, with the exact sum.
func TestCashDeltasMerge(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 6, 1, 3, 0, 0, 0, time.UTC)
	d := NewCashDeltas()
	for i, a := range []string{"0.1", "0.2", "1000000000000.000000000001"} {
		s := state(StatusSuccess, created.Add(time.Duration(i)*time.Minute), a)
		d.Move(nil, s)
	}
	rows := d.Rows()
	if len(rows) != len(Offsets) {
		t.Fatalf("%d rows, want %d", len(rows), len(Offsets))
	}
	for _, r := range rows {
		if r.N != 3 || r.Amount != "1000000000000.300000000001" {
			t.Errorf("%+v", r)
		}
	}
}
