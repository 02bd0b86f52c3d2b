package reflectiontest

import (
	"testing"
)

// TestCancelAtNames checks CancelAt's names: each names a cancel point,
// and an unknown one is an error that lists the known ones.
func TestCancelAtNames(t *testing.T) {
	var c suite
	CancelAt(CancelInDispatch, CancelInAsker)(&c)
	points, err := c.cancelPoints()
	if err != nil {
		t.Fatal(err)
	}
	want := map[cancelPoint]bool{cancelInDispatch: true, cancelInAsker: true}
	if len(points) != len(want) || !points[cancelInDispatch] || !points[cancelInAsker] {
		t.Errorf("points = %v, want %v", points, want)
	}

	var none suite
	if points, err := none.cancelPoints(); points != nil || err != nil {
		t.Errorf("without CancelAt: %v, %v; want every point (nil) and no error", points, err)
	}

	var typo suite
	CancelAt("dispatching")(&typo)
	if _, err := typo.cancelPoints(); err == nil {
		t.Error("an unknown step was accepted")
	} else if got, want := err.Error(), `reflectiontest: CancelAt("dispatching"): no such step (the steps are "dispatch", "reflector", "strategy" and "asker")`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}

// TestLimitCancels: a scenario keeps its cancels at the allowed points
// only, and loses its cause.
func TestLimitCancels(t *testing.T) {
	for i := 0; i < 500; i++ {
		s := generate(DefaultSeed, i)
		s.limitCancels(map[cancelPoint]bool{cancelInReflector: true})
		if s.withCause {
			t.Fatalf("scenario %d kept its cause", i)
		}
		for k, st := range s.steps {
			if st.cancel != cancelNone && st.cancel != cancelInReflector {
				t.Fatalf("scenario %d step %d cancels at %v", i, k, st.cancel)
			}
		}
	}
}
