package recovery

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/errchain"
)

// observed wraps a run's Reflector: it counts the analyses it is asked
// for, and notes in the Run's record the rate-limit hint the machine will
// wait for (the larger of the analysis' RetryAfter and the error's), which
// the strategy needs to stagger the wait (see paced). With hideHints, the
// failure's error reaches the Driver without its Retry-After (see
// budgetModel): the Reflector is shown the whole error, and the hint is kept
// from the machine, whose wait the strategy then sets alone.
type observed struct {
	r         reflection.Reflector
	hideHints bool
	n         atomic.Int64
}

func (o *observed) Analyze(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	o.n.Add(1)
	st := stateFrom(ctx)
	if o.hideHints && st.full != nil {
		f.Err = st.full
	}
	a, err := o.r.Analyze(ctx, f)
	st.hint = max(a.RetryAfter, 0)
	if f.Err != nil {
		st.hint = max(st.hint, errchain.RetryAfter(f.Err))
	}
	if o.hideHints {
		a.RetryAfter = 0
	}
	return a, err
}

// byStatus is go-retryablehttp's default retry policy as a Reflector: a
// failure is recoverable when it carries no HTTP status (a transport error,
// or no HTTP at all), or its status is 429, or a 5xx other than 501 Not
// Implemented. Source: hashicorp/go-retryablehttp client.go,
// DefaultRetryPolicy and baseRetryPolicy.
var byStatus = reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	s := reflection.StatusCode(f.Err)
	ok := s == 0 || s == 429 || (s >= 500 && s != 501)
	return reflection.FailureAnalysis{IsRecoverable: ok, RootCause: f.Error, Severity: reflection.SeverityLow}, nil
})

// blind calls every failure recoverable, at low severity, with no
// correction: what a retry loop without analysis does.
var blind = reflection.ReflectorFunc(func(_ context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	return reflection.FailureAnalysis{IsRecoverable: true, RootCause: f.Error, Severity: reflection.SeverityLow}, nil
})

// noiseRate is the share of the noisy oracle's analyses that are wrong.
const noiseRate = 0.3

// oracle answers every failure from the scenario: recoverable exactly when
// the scenario is not permanent, at low severity, with the scenario's fix as
// its correction when it has one. With a noise source it is the noisy
// oracle: with probability noiseRate per analysis it answers one of three
// wrong answers instead, drawn uniformly (see wrong).
type oracle struct {
	sc *scenario

	mu    sync.Mutex
	noise *rand.Rand // nil: never wrong
}

func (o *oracle) Analyze(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	a := o.truth(stateFrom(ctx).fault)
	if o.noise == nil {
		return a, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.noise.Float64() >= noiseRate {
		return a, nil
	}
	return o.wrong(a, f), nil
}

// truth is the oracle's answer to a failure that met fault (nil for a
// reject). A fault that holds for a time (for_s) states that wait in its
// text, and the oracle reads it, as a perfect analysis would.
func (o *oracle) truth(fault *faultSpec) reflection.FailureAnalysis {
	a := reflection.FailureAnalysis{
		IsRecoverable: !o.sc.Permanent,
		RootCause:     "scenario " + o.sc.ID + " (" + o.sc.Class + ")",
		Severity:      reflection.SeverityLow,
	}
	if fault != nil {
		a.RetryAfter = fault.hold
	}
	if o.sc.Fix != nil {
		c := o.sc.Fix.correction()
		a.Correction = &c
	}
	return a
}

// wrong returns one of the three wrong answers, drawn uniformly: an InputFix
// that repeats the failed input, a ToolChange to another tool, or the truth
// with the opposite recoverable verdict. The first two are a model that
// believes it can fix the call, so they say recoverable. The other tool is
// drawn from the scenario's tools but the failed one; when there is no other,
// it is a name the scenario does not know (a Driver with WithSchemas drops
// that change). o.mu is held.
func (o *oracle) wrong(truth reflection.FailureAnalysis, f reflection.Failure) reflection.FailureAnalysis {
	a := reflection.FailureAnalysis{IsRecoverable: true, RootCause: "a wrong guess", Severity: reflection.SeverityLow}
	switch o.noise.IntN(3) {
	case 0:
		a.Correction = &reflection.Correction{Type: reflection.InputFix, Description: "retry the same input", ModifiedInput: f.Input}
	case 1:
		a.Correction = &reflection.Correction{Type: reflection.ToolChange, Description: "try another tool", AlternativeTool: o.otherTool(f.Tool)}
	default:
		a = truth
		a.IsRecoverable = !a.IsRecoverable
	}
	return a
}

// otherTool draws a tool other than current. o.mu is held.
func (o *oracle) otherTool(current string) string {
	var others []string
	for _, t := range o.sc.tools {
		if t.schema.Name != current {
			others = append(others, t.schema.Name)
		}
	}
	if len(others) == 0 {
		return current + "_v2" // the only tool is current, so this one is unknown
	}
	return others[o.noise.IntN(len(others))]
}

// source returns the random source of one stream ("noise", "jitter") of one
// run: a PCG seeded by the seed and a hash of the configuration, the
// scenario and the stream. Each run draws from its own sources, so its
// results do not depend on which runs came before it or run beside it.
func source(config string, seed uint64, sc *scenario, stream string) *rand.PCG {
	h := fnv.New64a()
	for _, s := range []string{config, sc.ID, stream} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return rand.NewPCG(seed, h.Sum64())
}
