package recovery

import (
	"slices"
	"testing"
	"testing/synctest"
)

// configNamed returns the standard configuration called name.
func configNamed(t *testing.T, name string) config {
	t.Helper()
	i := slices.IndexFunc(configs, func(c config) bool { return c.name == name })
	if i < 0 {
		t.Fatalf("no configuration %q", name)
	}
	return configs[i]
}

// playOnce plays sc under c with seed in a bubble of its own.
func playOnce(t *testing.T, c config, sc *scenario, seed uint64) runResult {
	t.Helper()
	var res runResult
	synctest.Test(t, func(t *testing.T) {
		var err error
		if res, err = play(c, sc, seed); err != nil {
			t.Fatal(err)
		}
	})
	return res
}

// storm is an outage that recovers, met by ten agents at once, with a
// Retry-After that makes their waits end together unless they are staggered.
const storm = `{"id": "storm-1", "class": "outage_recovers", "tools": [{"name": "get_quote", "effect": "read_only"}], "call": {"name": "get_quote", "input": {"symbol": "ACME"}}, "faults": [{"error": "503 Service Unavailable", "status": 503, "retry_after": "2"}], "permanent": true, "recovers_after_s": 30, "repeat": 800, "concurrency": 10, "gap_s": 1, "result": "ACME 12.30", "right": "no_retry"}`

// TestPlayDeterministic checks that a run with agents at once is the same
// run every time: the agents never act at one instant, whatever the
// scheduler does.
func TestPlayDeterministic(t *testing.T) {
	sc := mustScenario(t, storm)
	for _, name := range []string{"blind_retry_3", "rules_safe", "rules_safe_aws2026"} {
		t.Run(name, func(t *testing.T) {
			c := configNamed(t, name)
			first := playOnce(t, c, sc, 1)
			for range 3 {
				if got := playOnce(t, c, sc, 1); got != first {
					t.Fatalf("got %+v, then %+v", first, got)
				}
			}
			if first.calls != 800 || first.logical != 800 {
				t.Errorf("got %d Runs of %d logical calls, want 800 of 800", first.calls, first.logical)
			}
		})
	}
}

// TestPlayRecovering checks the recovering outage's metrics on storm: with
// no retry, every call before the recovery fails once and every call after
// it succeeds, so the first success comes at once.
func TestPlayRecovering(t *testing.T) {
	sc := mustScenario(t, storm)
	res := playOnce(t, configNamed(t, "no_retry"), sc, 1)
	// Ten agents, one call a second each: calls 0–299 are due before 30 s.
	if res.right != 800 || res.dispatches != 800 || res.lag != 0 || res.healthyRefusals != 0 {
		t.Errorf("no_retry: got %+v", res)
	}
	safe := playOnce(t, configNamed(t, "rules_safe"), sc, 1)
	if safe.breakerRefusals == 0 || safe.healthyRefusals == 0 || safe.lag == 0 {
		t.Errorf("rules_safe: got %+v, want a breaker that refuses the recovered service for a while", safe)
	}
	if !safe.inTime {
		t.Errorf("rules_safe: first success %v after the recovery, want within the open time plus two gaps", safe.lag)
	}
}

// reissued is a payment that times out after charging, then works: the
// model issues it again when it ends without success.
const reissued = `{"id": "re-1", "class": "reissue", "tools": [{"name": "charge_card", "effect": "non_idempotent"}], "call": {"name": "charge_card", "input": {"customer": "cus_1", "amount": 1999}}, "faults": [{"error": "Post \"https://api.example/charges\": context deadline exceeded", "timeout": true, "commits": true}], "reissue": 2, "gap_s": 10, "result": "charged", "right": "no_retry"}`

func TestPlayReissue(t *testing.T) {
	sc := mustScenario(t, reissued)
	// no_retry: the call fails, the model issues it again, it succeeds: the
	// card is charged twice, and the scenario is wrong.
	res := playOnce(t, configNamed(t, "no_retry"), sc, 1)
	if res.calls != 2 || res.dispatches != 2 || res.duplicates != 1 || res.right != 0 {
		t.Errorf("no_retry: got %+v, want 2 Runs, 2 dispatches, 1 duplicate, wrong", res)
	}
	// adk_reflect_retry on a permanent failure: the call and three re-issues.
	perm := mustScenario(t, `{"id": "re-2", "class": "permanent", "tools": [{"name": "t", "effect": "read_only"}], "call": {"name": "t", "input": {}}, "faults": [{"error": "403 Forbidden", "status": 403}], "permanent": true, "result": "x", "right": "no_retry"}`)
	adk := playOnce(t, configNamed(t, "adk_reflect_retry"), perm, 1)
	if adk.calls != 4 || adk.dispatches != 4 || adk.right != 0 {
		t.Errorf("adk_reflect_retry: got %+v, want 4 Runs, 4 dispatches, wrong", adk)
	}
	if nr := playOnce(t, configNamed(t, "no_retry"), perm, 1); nr.calls != 1 || nr.right != 1 {
		t.Errorf("no_retry on a permanent failure: got %+v, want 1 Run, right", nr)
	}
}

// TestBudgetModel checks the harness's own budget against the root's: with
// the root's costs it must refuse the same retries, on a storm of
// scenarios where the budget runs dry.
func TestBudgetModel(t *testing.T) {
	sc := mustScenario(t, `{"id": "dry-1", "class": "outage", "tools": [{"name": "get_quote", "effect": "read_only"}], "call": {"name": "get_quote", "input": {"symbol": "ACME"}}, "faults": [{"error": "upstream request timeout", "timeout": true}, {"error": "502 Bad Gateway", "status": 502}], "permanent": true, "repeat": 300, "concurrency": 20, "gap_s": 0.5, "result": "ACME 12.30", "right": "no_retry"}`)
	root := configNamed(t, "blind_safe")
	root.noBreaker = true
	model := root
	model.budget = &todayCosts
	want := playOnce(t, root, sc, 1)
	got := playOnce(t, model, sc, 1)
	if want.budgetRefusals == 0 {
		t.Fatalf("the root's budget refused nothing (%+v): the scenario does not test the model", want)
	}
	if got != want {
		t.Errorf("the model: %+v\nthe root:  %+v", got, want)
	}
}
