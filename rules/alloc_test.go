package rules_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/rules"
)

// TestMissAllocatesNothing: a failure the stock table has no answer for
// costs no allocation, however long its text and whatever its case: every
// message of the data set that the table skips, a 16 KiB traceback and a
// 1 MiB log.
func TestMissAllocatesNothing(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("coverage and the race detector allocate on their own")
	}
	r := rules.New(rules.Defaults()...)
	ctx := context.Background()
	texts := []string{
		"json: cannot unmarshal string into Go value of type int",
		"Traceback (most recent call last):\n" + strings.Repeat("  File \"/srv/app/handlers.py\", line 120, in handle\n    return self.dispatch(request)\n", 200) + "KeyError: 'id'",
		strings.Repeat("[build] compiling module github.com/acme/service/internal/handlers (pkg 12 of 40)\n", (1<<20)/80) + "error: exit status 2",
	}
	for _, file := range datasetFiles {
		for _, m := range loadDataset(t, file) {
			texts = append(texts, m.Text)
		}
	}
	misses := 0
	for _, text := range texts {
		f := reflection.Failure{Tool: "tool", Error: text}
		if _, err := r.Analyze(ctx, f); !errors.Is(err, reflection.ErrSkipped) {
			continue
		}
		misses++
		allocs := testing.AllocsPerRun(20, func() { r.Analyze(ctx, f) })
		assert.Zero(t, allocs, "%.120q", text)
	}
	require.Greater(t, misses, 100, "the data set has misses to measure")
}
