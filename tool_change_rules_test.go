package reflection_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/reflectiontest"
)

// TestToolChangeFilterAndListTogether: WithToolChangeFilter and
// WithAllowedTools both apply, in either order; neither replaces the other.
func TestToolChangeFilterAndListTogether(t *testing.T) {
	noDeletes := func(_, to string) bool { return to != "delete_v2" }
	tests := []struct {
		name string
		opts []reflection.Option
		to   string
		ran  string
	}{
		{"listed and allowed", []reflection.Option{reflection.WithAllowedTools("search_v2", "delete_v2"), reflection.WithToolChangeFilter(noDeletes)}, "search_v2", "search_v2"},
		{"listed, the filter says no", []reflection.Option{reflection.WithAllowedTools("search_v2", "delete_v2"), reflection.WithToolChangeFilter(noDeletes)}, "delete_v2", "search"},
		{"the filter first, then the list", []reflection.Option{reflection.WithToolChangeFilter(noDeletes), reflection.WithAllowedTools("search_v2", "delete_v2")}, "delete_v2", "search"},
		{"not listed", []reflection.Option{reflection.WithToolChangeFilter(noDeletes), reflection.WithAllowedTools("search_v2")}, "other", "search"},
		{"the later list replaces", []reflection.Option{reflection.WithAllowedTools("other"), reflection.WithAllowedTools("search_v2")}, "other", "search"},
		{"no names, no switch", []reflection.Option{reflection.WithAllowedTools()}, "search_v2", "search"},
		{"a nil filter leaves the list", []reflection.Option{reflection.WithAllowedTools("search_v2"), reflection.WithToolChangeFilter(nil)}, "search_v2", "search_v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := reflectiontest.NewTool(reflectiontest.Fail("503"), reflectiontest.Succeed("ok"))
			d := reflection.NewDriver(append(tt.opts,
				reflection.WithReflector(sfAlways(sfRecoverable(sfToolChange(tt.to)))), reflection.WithStrategy(sfRetryN(1)))...)
			_, err := d.Run(context.Background(), sfCall("search", `{}`), tool.Dispatch)
			require.NoError(t, err)
			calls := tool.Calls()
			require.Len(t, calls, 2)
			assert.Equal(t, tt.ran, calls[1].Name)
		})
	}
}
