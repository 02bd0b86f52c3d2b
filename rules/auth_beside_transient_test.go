package rules_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// authBesideTransientFile holds credential and permission failures as real
// systems print them with a transient word beside the cause (a WAF's 403
// that says "try again later", an x509 error under gRPC Unavailable, a 503
// or 429 that says the account is suspended, an SSH authentication failure
// and then "connection reset", kubectl's "must be logged in" after an i/o
// timeout), or with the cause in the middle of a text longer than the scan
// window (an AccessDeniedException 5 KB into a 12 KB log). It was collected
// after the stock table was written, and is not part of the data set the
// table was tuned on.
const authBesideTransientFile = "testdata/auth_beside_transient.jsonl"

// TestAuthBesideTransient holds the stock table to its first rule: rejected
// credentials and refused permissions are escalated, never retried, whatever
// transient word stands beside them and wherever they stand in the first
// 64 KiB of the text. Retrying rejected credentials can lock the account.
func TestAuthBesideTransient(t *testing.T) {
	data := loadDataset(t, authBesideTransientFile)
	require.GreaterOrEqual(t, len(data), 34)
	t.Logf("%s: %d messages%s", authBesideTransientFile, len(data), scoreDataset(data).report())
	r := rules.New(rules.Defaults()...)
	for i, m := range data {
		require.Equal(t, "auth", m.Class, "line %d", i+1)
		t.Run(fmt.Sprintf("%02d %s", i+1, m.System), func(t *testing.T) {
			a, err := r.Analyze(context.Background(), reflection.Failure{Error: m.Text, Tool: "tool"})
			assert.Equal(t, "escalate", verdictOf(a, err), "answered by %q (%d bytes): %.200q", a.Context, len(m.Text), m.Text)
		})
	}
}
