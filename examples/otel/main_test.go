package main

import (
	"strings"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestExample runs the demo and checks the tree it prints: each call's span
// under the agent's turn, its attempts under it, the tools' own spans
// under the attempts, the events, the redacted texts and the metrics. The
// backoff's waits run on synctest's clock.
func TestExample(t *testing.T) {
	var out strings.Builder
	synctest.Test(t, func(t *testing.T) {
		if err := run(&out); err != nil {
			t.Fatalf("run: %v", err)
		}
	})
	got := out.String()
	if strings.Contains(got, "sk-proj-") {
		t.Errorf("a secret got through:\n%s", got)
	}
	for _, want := range []string{
		"get_weather -> error=false: Lisbon: 19°C, clear",
		`search -> error=false: 3 results for "release notes"`,
		"login -> error=true: invalid credentials: api_key=[REDACTED]",
		"attempt 0: retry after 10ms", // the host's own observer
		"\nagent.turn\n  reflection.run get_weather {",
		"reflection.outcome=succeeded}\n    · reflection.model_request {",
		"    · reflection.correction {reflection.attempt=0 reflection.correction.applied=true reflection.correction.input={\"city\":\"Lisbon\"} reflection.correction.type=input_fix}\n    execute_tool get_weather {error.type=tool_error",
		"reflection.attempt=0} status=Error(\"unknown city Lisbn\")\n      GET /forecast\n    execute_tool get_weather {",
		"reflection.attempt=1}\n      GET /forecast\n  reflection.run search {",
		"reflection.correction.tool=search_v2 reflection.correction.type=tool_change}",
		"    execute_tool search_v2 {gen_ai.operation.name=execute_tool",
		"reflection.attempt=1}\n      GET /v2/search\n  reflection.run login {error.type=failed",
		`gen_ai.tool.call.arguments={"user":"ana","api_key":"[REDACTED]"}`,
		"reflection.outcome=failed reflection.reason=strategy} status=Error(\"invalid credentials: api_key=[REDACTED]\")",
		"· reflection.decision {reflection.action=fail reflection.attempt=0 reflection.decision.reason=the credentials are wrong}",
		"· reflection.wait {reflection.attempt=0 reflection.wait.delay=0.01}",
		"reflection.calls {gen_ai.tool.name=get_weather reflection.outcome=succeeded} = 1",
		"reflection.calls {gen_ai.tool.name=login reflection.outcome=failed reflection.reason=strategy} = 1",
		"reflection.call.attempts {gen_ai.tool.name=search reflection.outcome=succeeded} count=1 sum=2",
		"reflection.wait.duration {gen_ai.tool.name=get_weather} count=1",
		"gen_ai.client.token.usage {gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt-4o-mini gen_ai.token.type=input} count=3 sum=1050",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q; got:\n%s", want, got)
		}
	}
	// gen_ai.operation.name=execute_tool only on the five attempt spans.
	if n := strings.Count(got, "gen_ai.operation.name=execute_tool"); n != 5 {
		t.Errorf("execute_tool on %d spans, want the 5 attempts", n)
	}
}
