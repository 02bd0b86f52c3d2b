package reflection_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection/reflectiontest"
)

// TestPropertyRun runs the conformance suite of reflectiontest against
// Driver.Run: generated scenarios, each in its own synctest bubble, checked
// against the suite's model of the loop's rules, with what calls share (a
// Health, a RetryBudget, a LoopDetector) included. Odd scenarios run
// through RunWithReport, so the Report is checked too. A failure prints the
// flags that reproduce it:
//
//	go test . -run '^TestPropertyRun$' -v -reflectiontest.seed=S -reflectiontest.only=I
func TestPropertyRun(t *testing.T) {
	reflectiontest.Conformance(t, runDriver, reflectiontest.WithSharedState())
}

// runDriver is Driver.Run as the suite's runtime.
func runDriver(ctx context.Context, _ *testing.T, s *reflectiontest.Scenario) reflectiontest.Ran {
	if s.Index()%2 == 1 {
		rep, err := s.Driver().RunWithReport(ctx, s.Call, s.Dispatch)
		return reflectiontest.Ran{Result: rep.Result, Err: err, Report: &rep}
	}
	res, err := s.Driver().Run(ctx, s.Call, s.Dispatch)
	return reflectiontest.Ran{Result: res, Err: err}
}

// relObject returns a JSON object of exactly n bytes (n >= 8); the safety
// tests use it.
func relObject(n int) json.RawMessage {
	return json.RawMessage(`{"k":"` + strings.Repeat("a", n-8) + `"}`)
}

// relPanickyError is an error whose Error method always panics; the
// hardening tests use it.
type relPanickyError struct{}

func (relPanickyError) Error() string { panic("Error method exploded") }
