package reflectionotel_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
	reflectionotel "github.com/loopctl-go/reflection/contrib/otel"
	"github.com/loopctl-go/reflection/reflectiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// secret is a key of a shape reflection.RedactSecrets knows.
const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"

// textKeys are the attributes that hold texts; they appear only WithTexts.
var textKeys = []attribute.Key{
	"gen_ai.tool.call.arguments", "gen_ai.tool.call.result",
	"reflection.failure", "reflection.error", "reflection.root_cause", "reflection.decision.reason", "reflection.prompt",
	"reflection.correction.tool", "reflection.correction.input", "reflection.correction.why",
	"reflection.reply", "reflection.answer.input",
}

// leakyCalls runs calls whose every text holds the secret, through every
// kind of event: an input fix, a dropped tool change, a human's own input, a
// human's refusal, a failing reflector, a model request and a success.
func leakyCalls(t *testing.T, h *harness) {
	t.Helper()
	input := `{"api_key":"` + secret + `"}`
	refl := reflectiontest.NewReflector(
		analysis("the key "+secret+" is wrong", inputFix(`{"api_key":"`+secret+`2"}`)),
		analysis("use the tool "+secret, toolChange("tool-"+secret)),
		analysis("a human must say "+secret, nil),
		analysis("a human must say "+secret, nil),
	)
	ask := reflection.AskUser{Prompt: "approve " + secret + "?"}
	strategy := reflectiontest.NewStrategy(reflection.Retry{}, reflection.Retry{}, ask, ask)
	answers := []reflection.Answer{
		{Approve: true, Input: []byte(`{"api_key":"` + secret + `3"}`)},
		{Reply: "no, " + secret},
	}
	asker := reflection.AskerFunc(func(context.Context, reflection.Question) (reflection.Answer, error) {
		a := answers[0]
		answers = answers[1:]
		return a, nil
	})
	d := h.driver(reflection.WithReflector(refl), reflection.WithStrategy(strategy), reflection.WithAsker(asker),
		reflection.WithSchemas(schemas("login")))
	tl := newTool(h.tp, bad("denied for "+secret))
	_, err := d.Run(context.Background(), reflection.ToolCall{Name: "login", Input: []byte(input)}, tl.dispatch)
	require.NoError(t, err)

	d = h.driver(reflection.WithReflector(reflection.ReflectorFunc(func(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
		h.tel.RecordModelRequest(ctx, reflectionotel.ModelRequest{Err: errors.New("the model said " + secret)})
		return reflection.FailureAnalysis{}, errors.New("unusable answer " + secret)
	})))
	_, err = d.Run(context.Background(), reflection.ToolCall{Name: "login", Input: []byte(input)},
		newTool(h.tp, failing(errors.New("dial "+secret))).dispatch)
	require.NoError(t, err)

	_, err = h.driver().Run(context.Background(), reflection.ToolCall{Name: "echo", Input: []byte(input)},
		newTool(h.tp, ok("echo "+secret)).dispatch)
	require.NoError(t, err)
}

// everyText returns every attribute value and status description of the
// spans and their events, by key ("status" for descriptions).
func everyText(spans []sdktrace.ReadOnlySpan) map[attribute.Key][]string {
	out := map[attribute.Key][]string{}
	add := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			out[kv.Key] = append(out[kv.Key], kv.Value.Emit())
		}
	}
	for _, s := range spans {
		add(s.Attributes())
		for _, e := range s.Events() {
			add(e.Attributes)
		}
		if d := s.Status().Description; d != "" {
			out["status"] = append(out["status"], d)
		}
	}
	return out
}

// TestNoTextsByDefault checks that without WithTexts no text reaches a span.
func TestNoTextsByDefault(t *testing.T) {
	h := newHarness(t)
	leakyCalls(t, h)
	texts := everyText(h.ended())
	for _, k := range textKeys {
		assert.NotContains(t, texts, k)
	}
	assert.NotContains(t, texts, attribute.Key("status"))
	for k, vs := range texts {
		for _, v := range vs {
			assert.NotContains(t, v, "sk-proj", "%s", k)
		}
	}
}

// TestTextsRedacted checks that WithTexts records every text, each through
// the redactor.
func TestTextsRedacted(t *testing.T) {
	h := newHarness(t, reflectionotel.WithTexts(reflection.RedactSecrets))
	leakyCalls(t, h)
	texts := everyText(h.ended())
	for _, k := range append(textKeys, "status") {
		require.Contains(t, texts, k, "texts of %s", k)
		for _, v := range texts[k] {
			assert.NotContains(t, v, "sk-proj", "%s", k)
		}
	}
	all := func(k attribute.Key) string { return strings.Join(texts[k], "\n") }
	assert.Contains(t, all("gen_ai.tool.call.arguments"), `{"api_key":"[REDACTED]"}`)
	assert.Contains(t, all("gen_ai.tool.call.result"), "echo [REDACTED]")
	assert.Contains(t, all("reflection.root_cause"), "the key [REDACTED] is wrong")
	assert.Contains(t, all("reflection.reply"), "no, [REDACTED]")
	assert.Contains(t, all("status"), "denied for [REDACTED]")
	assert.Contains(t, all("reflection.error"), "the model said [REDACTED]")
}

// TestTextsUnredacted checks that WithTexts(nil) records texts as they are.
func TestTextsUnredacted(t *testing.T) {
	h := newHarness(t, reflectionotel.WithTexts(nil))
	tl := newTool(h.tp, bad("denied for "+secret), ok("fine"))
	d := h.driver(reflection.WithReflector(reflectiontest.NewReflector(analysis("key "+secret, nil))),
		reflection.WithStrategy(reflection.NewExponentialBackoff(3).WithBaseDelay(0)))
	_, err := d.Run(context.Background(), reflection.ToolCall{Name: "login", Input: []byte(`{"k":"` + secret + `"}`)}, tl.dispatch)
	require.NoError(t, err)
	first := h.named("execute_tool login")[0]
	assert.Equal(t, "denied for "+secret, first.Status().Description)
	assert.Equal(t, `{"k":"`+secret+`"}`, spanAttrs(first)["gen_ai.tool.call.arguments"])
	runSpan := h.one(t, "reflection.run login")
	assert.Equal(t, "fine", spanAttrs(runSpan)["gen_ai.tool.call.result"])
	assert.Equal(t, []map[string]any{{
		"reflection.attempt": int64(0), "reflection.recoverable": true, "reflection.severity": "low",
		"reflection.failure": "denied for " + secret, "reflection.root_cause": "key " + secret,
	}}, eventsNamed(runSpan, "reflection.analysis"))
}
