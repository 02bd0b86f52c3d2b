package recovery

import (
	"errors"
	"fmt"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/caps"
)

// minOutageRepeat is the smallest repeat of an outage: with fewer calls, the
// 90 % rule would not leave room for the one call that finds the outage.
const minOutageRepeat = 10

// The classes with rules of their own.
const (
	recoveringClass = "outage_recovers"
	reissueClass    = "reissue"
)

// checkConsistent reports every reason why sc cannot end as it says is right
// under a perfect analysis and the Driver's own limits, or nil:
//
//   - the accepted tool, and the tool a tool_change fix names, are among
//     the scenario's tools;
//   - a reject is given wherever a call other than the accepted one can
//     reach a known tool (a second tool, or a known tool called wrongly);
//   - a succeed scenario is not permanent, its fix leads from the call to
//     the accepted one, the refused first call (when the call is not the
//     accepted one), the faults and the success fit in
//     MaxRecoveryAttempts+1 dispatches, and no fault asks for a wait over
//     the Driver's default Retry-After cap;
//   - a no_retry scenario's first dispatch fails;
//   - an outage is permanent and made at least minOutageRepeat times; one
//     that recovers has time between its calls and calls due after the
//     recovery;
//   - a reissue scenario has re-issues, and no fault holds longer than the
//     Retry-After cap.
func checkConsistent(sc *scenario) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if _, ok := sc.toolNamed(sc.accept.tool); !ok {
		bad("accept names tool %q, which is not in tools", sc.accept.tool)
	}
	if f := sc.Fix; f != nil && f.Type == reflection.ToolChange {
		if _, ok := sc.toolNamed(f.AlternativeTool); !ok {
			bad("fix names tool %q, which is not in tools", f.AlternativeTool)
		}
	}
	call, err := callPair(sc)
	if err != nil {
		return err
	}
	_, known := sc.toolNamed(call.tool)
	if sc.Reject == nil && (len(sc.tools) > 1 || (known && call != sc.accept)) {
		bad("no reject, but a call other than the accepted one can reach a tool")
	}
	switch sc.Right {
	case rightSucceed:
		checkReachable(sc, call, bad)
	case rightNoRetry:
		if call == sc.accept && len(sc.Faults) == 0 {
			bad("right is no_retry, but the first dispatch succeeds")
		}
	}
	if sc.Class == outageClass && (!sc.Permanent || sc.calls < minOutageRepeat) {
		bad("an outage must be permanent with a repeat of at least %d", minOutageRepeat)
	}
	if sc.Class == recoveringClass {
		checkRecovering(sc, bad)
	}
	if sc.Class == reissueClass && sc.Reissue == 0 {
		bad("a reissue scenario must say how many times the model issues the call again (reissue)")
	}
	for i, f := range sc.Faults {
		if f.hold > caps.MaxRetryAfter {
			bad("faults[%d] holds for %v, more than the Retry-After cap of %v", i, f.hold, caps.MaxRetryAfter)
		}
	}
	return errors.Join(errs...)
}

// checkRecovering checks an outage that recovers: it is made at least
// minOutageRepeat times, with time between calls, and some of its calls are
// due after the recovery.
func checkRecovering(sc *scenario, bad func(string, ...any)) {
	if sc.heal == 0 || sc.calls < minOutageRepeat || sc.gap == 0 {
		bad("an outage that recovers needs recovers_after_s, gap_s and a repeat of at least %d", minOutageRepeat)
		return
	}
	perAgent := (sc.calls + sc.agents - 1) / sc.agents
	if last := time.Duration(perAgent-1) * sc.gap; last <= sc.heal {
		bad("no call is due after the recovery at %v (the last is due at %v)", sc.heal, last)
	}
}

// checkReachable checks that a succeed scenario can succeed within the
// ceiling and the Retry-After cap.
func checkReachable(sc *scenario, call pair, bad func(string, ...any)) {
	if sc.Permanent {
		bad("right is succeed, but the scenario is permanent")
		return
	}
	dispatches := len(sc.Faults) + 1
	if call != sc.accept {
		dispatches++ // the call as made is refused
		fixed, err := applyFix(sc.Fix, call)
		if err != nil {
			bad("fix: %v", err)
		} else if fixed != sc.accept {
			bad("the fix does not turn the call into the accepted one")
		}
	}
	if limit := reflection.MaxRecoveryAttempts + 1; dispatches > limit {
		bad("success needs %d dispatches, more than the ceiling of %d", dispatches, limit)
	}
	for i, f := range sc.Faults {
		if f.RetryAfter == "" {
			continue
		}
		d, _ := reflection.ParseRetryAfter(f.RetryAfter, synctestEpoch)
		if d > caps.MaxRetryAfter {
			bad("faults[%d] asks to wait %v, more than the cap of %v", i, d, caps.MaxRetryAfter)
		}
	}
}

// callPair is the scenario's call as a pair.
func callPair(sc *scenario) (pair, error) {
	in, err := canonical(sc.Call.Input)
	if err != nil {
		return pair{}, fmt.Errorf("call.input: %w", err)
	}
	return pair{tool: sc.Call.Name, input: in}, nil
}

// applyFix returns p as the Driver runs it after fix: an input_fix replaces
// the input, a tool_change the tool, and the advisory types change nothing.
func applyFix(fix *fixSpec, p pair) (pair, error) {
	if fix == nil {
		return p, nil
	}
	switch fix.Type {
	case reflection.InputFix:
		in, err := canonical(fix.ModifiedInput)
		if err != nil {
			return pair{}, err
		}
		p.input = in
	case reflection.ToolChange:
		p.tool = fix.AlternativeTool
	}
	return p, nil
}
