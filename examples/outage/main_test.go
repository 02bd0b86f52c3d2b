package main

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestOutage plays the scenario in virtual time and checks what the
// program claims: with a retry budget, and more with a circuit breaker too,
// the service gets fewer requests per call, above all while it is down, and
// the calls after the outage succeed again.
func TestOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plain, budgeted, guarded, err := compare()
		if err != nil {
			t.Fatalf("compare: %v", err)
		}
		for _, r := range []result{plain, budgeted, guarded} {
			if r.calls != agents*callsEach {
				t.Errorf("%s: %d calls, want %d", r.name, r.calls, agents*callsEach)
			}
			if got := r.succeeded + r.breaker + r.budget + r.failed; got != r.calls {
				t.Errorf("%s: %d calls ended (succeeded %d, breaker %d, budget %d, failed %d), want %d",
					r.name, got, r.succeeded, r.breaker, r.budget, r.failed, r.calls)
			}
			if r.callsWhileDown == 0 || r.whileDown == 0 {
				t.Errorf("%s: no call met the outage (%d calls, %d requests while down)", r.name, r.callsWhileDown, r.whileDown)
			}
			if r.lastSucceeded != agents {
				t.Errorf("%s: the last call succeeded for %d agents, want all %d", r.name, r.lastSucceeded, agents)
			}
		}
		if plain.breaker != 0 || plain.budget != 0 {
			t.Errorf("without the options, calls refused: breaker %d, budget %d", plain.breaker, plain.budget)
		}
		if plain.failed == 0 {
			t.Error("without the options, no call failed: the outage is too short to show anything")
		}
		// While the service is down, each call sends it more than two
		// requests with the backoff only (the retries), fewer with a
		// budget (once it is spent, no retries), and far fewer than one
		// with a breaker too (it is open).
		if p := plain.perCallWhileDown(); p <= 2 {
			t.Errorf("without the options, %.2f requests per call while down, want more than 2", p)
		}
		if b, p := budgeted.perCallWhileDown(), plain.perCallWhileDown(); b >= p/2 {
			t.Errorf("with a budget, %.2f requests per call while down, want under half of %.2f", b, p)
		}
		if budgeted.budget == 0 || budgeted.breaker != 0 {
			t.Errorf("with a budget, calls refused: budget %d, breaker %d; want budget > 0, breaker 0",
				budgeted.budget, budgeted.breaker)
		}
		if b, p := budgeted.perCall(), plain.perCall(); b >= p {
			t.Errorf("with a budget, %.2f requests per call, want fewer than %.2f", b, p)
		}
		if g, b := guarded.perCallWhileDown(), budgeted.perCallWhileDown(); g >= b/10 {
			t.Errorf("with both options, %.2f requests per call while down, want under a tenth of %.2f", g, b)
		}
		if g, b := guarded.perCall(), budgeted.perCall(); g >= b {
			t.Errorf("with both options, %.2f requests per call, want fewer than %.2f", g, b)
		}
		if guarded.breaker == 0 {
			t.Error("with both options, the breaker refused no call")
		}
		// Once the service is back, the breaker lets a probe through within
		// one open period and closes at its success: it refuses at most
		// the calls that period holds.
		if limit := int(agents * breakerOpenFor / interval); guarded.refusedBack > limit {
			t.Errorf("with both options, %d calls refused once the service was back, want at most %d", guarded.refusedBack, limit)
		}
		if plain.refusedBack != 0 {
			t.Errorf("without the options, %d calls refused once the service was back", plain.refusedBack)
		}
		if g, p := guarded.meanCall(), plain.meanCall(); g >= p {
			t.Errorf("with both options, a call took %v on average, want less than %v", g, p)
		}
		t.Logf("virtual time:\n%s", table(plain, budgeted, guarded))
	})
}

// TestBlip checks the lone call through a blip: with the recommended
// breaker, which three failing calls open for 60s, a call whose first three
// requests fail succeeds on its fourth and leaves the breaker closed.
func TestBlip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := blip()
		if err != nil {
			t.Fatalf("blip: %v", err)
		}
		want := blipResult{outcome: reflection.OutcomeSucceeded, requests: blipFailures + 1, breaker: reflection.BreakerClosed}
		if b != want {
			t.Errorf("blip: %+v, want %+v", b, want)
		}
	})
}

// TestRun runs the program as main does, in virtual time, and checks what it
// prints.
func TestRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out strings.Builder
		if err := run(&out); err != nil {
			t.Fatalf("run: %v", err)
		}
		for _, want := range []string{
			"200 agents × 8 calls of get_stock, one every 50ms; the service is down from 100ms to 300ms\n",
			"calls  succeeded  failed  budget  breaker     back  requests  per call  while down  mean call   took\n",
			"\nbackoff only                     1600 ",
			"\n+ WithRetryBudget                1600 ",
			"\n+ WithRetryBudget + WithHealth   1600 ",
			"\nwhile the service was down, a call sent it ",
			"after the outage, the agents' last calls succeeded: 200, 200 and 200 of 200\n",
			"\none agent alone, through a blip that fails its first 3 requests: the call succeeded after 4 requests; the breaker is closed\n",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q; got:\n%s", want, out.String())
			}
		}
	})
}

// table is the program's table of results.
func table(rows ...result) string {
	var b strings.Builder
	printTable(&b, rows...)
	return b.String()
}
