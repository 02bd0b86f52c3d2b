package reflectiontemporal

import (
	"math/rand/v2"

	"go.temporal.io/sdk/workflow"
)

// randomStream names the workflow's random stream that RandSource returns.
const randomStream = "github.com/loopctl-go/reflection/contrib/temporal/jitter"

// RandSource returns a random source for workflow code: its draws are the
// same on every replay of the workflow. Give it to a jittered backoff built
// inside the workflow function, so that the strategy stays deterministic:
//
//	backoff := reflection.NewExponentialBackoff(3).WithJitter(0.5).WithRandSource(reflectiontemporal.RandSource(ctx))
//
// It is workflow.GetRandomStream under a name of this package; draw from it
// only in workflow code, never in a Query handler or an Update validator.
func RandSource(ctx workflow.Context) rand.Source {
	return workflow.GetRandomStream(ctx, randomStream)
}
