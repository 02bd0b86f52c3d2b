// Package recovery is the recovery benchmark: it measures whether automatic
// recovery of failed tool calls is worth having. Nothing imports it: its code
// is the harness, and its tests run it.
//
// TestRecovery runs the real Driver.Run, under testing/synctest so that every
// wait takes no real time, over a set of scenarios (testdata/scenarios.jsonl,
// or the file named by RECOVERY_SCENARIOS), once per configuration and seed,
// and reports for each configuration how often a call ended as it should
// (correct, per class, and τ-bench's pass^k over five seeds), what harm it
// did (duplicate side effects), and what it cost (dispatches, Reflector
// calls and virtual seconds waited per call, and the dispatches per call
// during an outage). With RECOVERY_JSON=path it also writes the results
// there; testdata/results.golden.json holds them for the committed set, so
// that a change to any number shows in review (rewrite it with -update).
//
//	cd bench
//	go test ./recovery -run TestRecovery -count=1 -v
//	go test ./recovery -run TestRecovery -count=1 -update   # rewrite the golden file
//
// # Scenarios
//
// A scenario is one JSON object per line: the tools the host offers (with
// what running each twice does), the call the model made, the one (tool,
// input) that can succeed, how every other call is refused, the faults the
// accepted call meets before it succeeds (or forever, when the scenario is
// permanent), how many times in a row the call is made, the correction a
// perfect analysis would propose, and what ending is right: success, or an
// end without success and without a second dispatch. TestScenarios checks
// that every scenario can end as it says it should.
//
// # Configurations
//
// The baselines are no_retry (a Driver without options), blind_retry_3 and
// blind_retry_5 (every failure recoverable, three or five retries). rules is
// the stock rule table with three retries; rules_safe adds the options that
// guard against side effects, failing tools, retry storms and correction
// loops. oracle_safe answers every failure from the scenario itself, with
// the same guards; noisy_oracle_safe does too, but answers wrongly three
// times in ten. oracle and noisy_oracle are the same two Reflectors without
// the guards, for comparison.
package recovery
