package recovery

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/loopctl-go/reflection"
)

// budgetModel is a retry budget the harness keeps itself, around the
// Driver, so that other costs than the root package's can be measured on
// the same scenarios: a token bucket charged when a retry's wait begins
// (the Observer's Waiting hook, where the root's own budget is charged),
// refusing by ending the Run's ctx, refunding a retry that was never
// dispatched, rewarding a call that succeeded at once and giving back the
// last retry of one that succeeded after retries, as the root's does.
//
// aws2026 is the AWS SDKs' retry behaviour of 2026 (opt-in with
// AWS_NEW_RETRIES_2026=true, the default from November 2026): 500 tokens,
// 14 per retry after a transient failure (a timeout included), 5 after a
// throttle, 1 back per call that succeeded at once; the delay before retry
// n (0-based) is a full jitter of min(base·2ⁿ, 20 s) with a base of 50 ms,
// or 1 s after a throttle, and a server's wait (x-amz-retry-after) is
// honoured within [that delay, that delay + 5 s]. Source: aws-sdk-php
// Retry/V3/RetryMiddleware.php and aws-sdk-net StandardRetryPolicy.cs
// (CapacityManager with retryCost 14, throttlingRetryCost 5), and the AWS
// SDKs and Tools reference guide, "Retry behavior".
type budgetModel struct {
	name                      string
	capacity                  int
	transient, timeout, throt int // tokens per retry after each kind of failure
	reward                    int // tokens back per call that succeeded at once
	awsDelays                 bool

	mu     sync.Mutex
	tokens int
}

// The two models: the root package's costs, kept by the harness (to check
// the model against the root's own budget), and AWS's of 2026.
var (
	todayCosts = budgetModel{name: "today", capacity: reflection.DefaultRetryBudget, transient: 5, timeout: 10, throt: 5, reward: 1}
	aws2026    = budgetModel{name: "aws2026", capacity: 500, transient: 14, timeout: 14, throt: 5, reward: 1, awsDelays: true}

	// aws2026Costs is AWS's costs with the backoff's own delays and the
	// machine's own Retry-After, to tell the costs' effect from the delays'.
	aws2026Costs = budgetModel{name: "aws2026_costs", capacity: 500, transient: 14, timeout: 14, throt: 5, reward: 1}
)

// The AWS delays.
const (
	awsTransientBase = 50 * time.Millisecond
	awsThrottleBase  = time.Second
	awsMaxBackoff    = 20 * time.Second
	awsHintSlack     = 5 * time.Second
)

// newBudget returns a full budget of the model m for one run.
func (m *budgetModel) newBudget() *budgetModel {
	b := &budgetModel{name: m.name, capacity: m.capacity, transient: m.transient, timeout: m.timeout,
		throt: m.throt, reward: m.reward, awsDelays: m.awsDelays, tokens: m.capacity}
	return b
}

// budgetCall is one Run's dealings with a budgetModel.
type budgetCall struct {
	cancel  context.CancelCauseFunc // ends the Run: the budget's refusal
	pending int                     // tokens of a retry not yet dispatched
	last    int                     // tokens of the latest retry that was dispatched
	refused bool
}

// charge takes the cost of the retry whose wait begins for st, or refuses
// it by ending the Run.
func (b *budgetModel) charge(st *callState) {
	cost := b.cost(st)
	b.mu.Lock()
	ok := b.tokens >= cost
	if ok {
		b.tokens -= cost
	}
	b.mu.Unlock()
	if !ok {
		st.budget.refused = true
		st.budget.cancel(errBudgetRefused)
		return
	}
	st.budget.pending = cost
}

// dispatched notes that the retry st paid for was sent.
func dispatched(st *callState) {
	if st.budget.pending > 0 {
		st.budget.last, st.budget.pending = st.budget.pending, 0
	}
}

// settle squares st's account when its Run has ended.
func (b *budgetModel) settle(st *callState) {
	back := st.budget.pending // a retry that was never sent
	if st.succeeded() {
		if st.dispatches == 1 {
			back += b.reward
		} else {
			back += st.budget.last
		}
	}
	if back == 0 {
		return
	}
	b.mu.Lock()
	b.tokens = min(b.tokens+back, b.capacity)
	b.mu.Unlock()
}

// cost is what a retry after st's latest failure costs.
func (b *budgetModel) cost(st *callState) int {
	switch {
	case throttled(st):
		return b.throt
	case st.full != nil && errors.Is(st.full, context.DeadlineExceeded):
		return b.timeout
	}
	return b.transient
}

// throttled reports whether st's latest failure is a throttle: a 429, or an
// error text with one of the AWS SDKs' throttling codes.
func throttled(st *callState) bool {
	f := st.fault
	if f == nil {
		return false
	}
	if f.Status == 429 {
		return true
	}
	for _, code := range awsThrottleCodes {
		if strings.Contains(f.Error, code) {
			return true
		}
	}
	return false
}

// awsThrottleCodes are the AWS SDKs' throttling error codes (aws-sdk-php's
// standard list).
var awsThrottleCodes = []string{
	"Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
	"TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
	"RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
	"SlowDown", "PriorRequestNotComplete", "EC2ThrottledException",
}

// awsDelay is the AWS delay before retry n (0-based) after st's failure.
func awsDelay(rng *lockedSource, st *callState, n int) time.Duration {
	base := awsTransientBase
	if throttled(st) {
		base = awsThrottleBase
	}
	ceiling := awsMaxBackoff
	if n < 30 && base<<n < awsMaxBackoff {
		ceiling = base << n
	}
	d := time.Duration(rng.float64() * float64(ceiling))
	if st.hint > 0 {
		d = min(max(st.hint, d), d+awsHintSlack)
	}
	return d
}

// lockedSource is a seeded random source shared by a run's agents.
type lockedSource struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (l *lockedSource) float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}
