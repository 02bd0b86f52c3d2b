// Package recovery is the recovery benchmark: it measures whether automatic
// recovery of failed tool calls is worth having. Its tests run it over the
// committed scenarios; Load, Run and the command cmd/recoverybench run it
// over a file of your own.
//
// TestRecovery runs the real Driver.Run, under testing/synctest so that every
// wait and every gap between calls takes no real time, over a set of
// scenarios (testdata/scenarios.jsonl, or the file named by
// RECOVERY_SCENARIOS), once per configuration and seed, and reports for each
// configuration how often a call ended as it should (correct, per class, each
// with its 95 % Wilson interval, and τ-bench's pass^k over five seeds), what
// harm it did (duplicate side effects), and what it cost (dispatches,
// Reflector calls, virtual seconds waited, questions and verifications per
// call, breaker and budget refusals, the dispatches per call during an
// outage, and, for an outage that recovers, how long after the recovery the
// first success came and how many calls were refused once the service was
// back). With RECOVERY_JSON=path it also writes the results there;
// testdata/results.golden.json holds them for the committed set, so that a
// change to any number shows in review (rewrite it with -update).
//
//	cd bench
//	go test ./recovery -run TestRecovery -count=1 -v
//	go test ./recovery -run TestRecovery -count=1 -update   # rewrite the golden file
//	RECOVERY_SWEEP=1 go test ./recovery -run 'TestBreakerSweep|TestBudgetCosts' -count=1 -v
//	go run ./recovery/cmd/recoverybench -scenarios my-failures.jsonl
//
// # Scenarios
//
// A scenario is one JSON object per line: the tools the host offers (with
// what running each twice does, and whether the host can look its effect
// up), the call the model made, the one (tool, input) that can succeed, how
// every other call is refused, the faults the accepted call meets before it
// succeeds (or forever, when the scenario is permanent, or until the outage
// recovers), how many times the call is made, by how many agents at once and
// how far apart in time, how many times the model issues it again after it
// ends without success, whether failures come back as errors or as failure
// results, the correction a perfect analysis would propose, and what ending
// is right: success, or an end without success and without a second
// dispatch. TestScenarios checks that every scenario can end as it says.
//
// Time and agents: a run's agents share one Driver, as a host's agents do
// (its breaker, budget and effect memory; a loop detector is one agent's
// session). Each agent acts only at virtual instants of its own (nanosecond
// offsets modulo the number of agents), so no two agents act at one instant
// and every run is the same whatever the scheduler does.
//
// The ledger: every success of the accepted call, and every fault that
// commits, is an effect of the logical call it belongs to (a repeat is a new
// logical call; a re-issue is the same one). For a keyed tool, an effect
// under a key that has already committed adds nothing; under another key, or
// none, it is a new one. A second effect of a logical call of a tool that is
// not idempotent, keyed or undeclared is a duplicate.
//
// # Configurations
//
// The baselines are no_retry (a Driver without options), status_retry_3
// (go-retryablehttp's default policy: a failure without a status, a 429 or a
// 5xx but 501 is retried, three times), blind_retry_3 and blind_retry_5
// (every failure recoverable) and adk_reflect_retry (Google ADK's
// ReflectAndRetryToolPlugin: every failure goes back to the model, which
// issues the same call again, up to three times per tool and invocation; no
// retry by the Driver and no guard). rules is the stock rule table with three
// retries; rules_safe is the set-up the README recommends, plus a verifier
// for the tools a scenario marks verifiable; blind_safe is blind retry with
// the same. oracle_safe answers every failure from the scenario itself, with
// the same guards; noisy_oracle_safe does too, but answers wrongly three
// times in ten. oracle and noisy_oracle are the same two Reflectors without
// the guards. rules_safe_aws2026 is rules_safe with the AWS SDKs' retry
// behaviour of 2026 (its token costs, delays and bounded x-amz-retry-after)
// in place of the root's budget, kept by the harness.
package recovery
