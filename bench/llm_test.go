package bench

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
)

// fakeClient answers every request with the same canned completion, in
// process: no HTTP, no JSON encoding of the request. It keeps the size of
// the user message so the prompt cannot be optimised away.
type fakeClient struct {
	resp openai.ChatCompletionResponse
}

var sinkPromptLen int

func (c *fakeClient) CreateChatCompletion(_ context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	sinkPromptLen = len(req.Messages[len(req.Messages)-1].Content)
	return c.resp, nil
}

// inputFixAnswer is a strict-schema answer whose InputFix validates against
// toolSchema: modified_input is a string that holds the fixed input.
const inputFixAnswer = `{"is_recoverable":true,"root_cause":"the path is empty",` +
	`"severity":"low","correction":{"correction_type":"input_fix",` +
	`"description":"give the path of the notes file",` +
	`"modified_input":"{\"path\":\"docs/notes.md\"}",` +
	`"alternative_tool":null,"guidance":null},` +
	`"context":"read_file needs a non-empty path"}`

func newFakeClient() *fakeClient {
	return &fakeClient{resp: openai.ChatCompletionResponse{
		ID:    "chatcmpl-bench",
		Model: openai.GPT4oMini,
		Choices: []openai.ChatCompletionChoice{{
			Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: inputFixAnswer},
			FinishReason: openai.FinishReasonStop,
		}},
	}}
}

// toolSchemaHead and toolSchemaTail frame the description keyword, which the
// cold benchmark varies so that every schema is a distinct cache entry.
const (
	toolSchemaHead = `{"type":"object","description":"`
	toolSchemaTail = `","properties":{"path":{"type":"string","minLength":1},` +
		`"offset":{"type":"integer","minimum":0}},"required":["path"],"additionalProperties":false}`
)

func toolSchemaDoc(desc string) json.RawMessage {
	return json.RawMessage(toolSchemaHead + desc + toolSchemaTail)
}

// llmFailure is the failure every Analyze is asked about: the first call of
// read_file, with an empty path.
func llmFailure(schema json.RawMessage) reflection.Failure {
	return reflection.Failure{
		Error:       errBadInput.Error(),
		Tool:        "read_file",
		Input:       badInput,
		Schema:      &reflection.ToolSchema{Name: "read_file", Description: "Read a file of the workspace.", InputSchema: schema},
		Task:        "summarise the project notes",
		Attempt:     0,
		MaxAttempts: reflection.MaxRecoveryAttempts + 1,
	}
}

// BenchmarkLLMAnalyze measures llm.Reflector.Analyze apart from the network:
// building the prompt, parsing the answer, checking it against the strict
// response schema, and validating the InputFix against the tool schema.
//
//   - warm: the same tool schema every time, so it is compiled once (before
//     the timed loop) and the cache hits;
//   - cold: a distinct tool schema every time (its description differs), so
//     every call compiles one; building the schema text is included;
//   - novalidate: WithSchemaValidation(false), the same work without the
//     InputFix check; warm minus novalidate is the cost of a cached check.
func BenchmarkLLMAnalyze(b *testing.B) {
	ctx := context.Background()
	b.Run("cache=warm", func(b *testing.B) {
		r := llm.New(newFakeClient())
		f := llmFailure(toolSchemaDoc("Input of read_file."))
		if _, err := r.Analyze(ctx, f); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			sinkAnalysis, sinkErr = r.Analyze(ctx, f)
		}
		checkAnalysis(b)
	})
	b.Run("cache=cold", func(b *testing.B) {
		r := llm.New(newFakeClient())
		f := llmFailure(nil)
		schema := *f.Schema
		f.Schema = &schema
		i := 0
		for b.Loop() {
			i++
			schema.InputSchema = toolSchemaDoc("Input of read_file, revision " + strconv.Itoa(i) + ".")
			sinkAnalysis, sinkErr = r.Analyze(ctx, f)
		}
		checkAnalysis(b)
	})
	b.Run("cache=novalidate", func(b *testing.B) {
		r := llm.New(newFakeClient(), llm.WithSchemaValidation(false))
		f := llmFailure(toolSchemaDoc("Input of read_file."))
		for b.Loop() {
			sinkAnalysis, sinkErr = r.Analyze(ctx, f)
		}
		checkAnalysis(b)
	})
}

// checkAnalysis fails b unless the last Analyze returned the canned InputFix.
func checkAnalysis(b *testing.B) {
	b.Helper()
	if sinkErr != nil {
		b.Fatalf("last Analyze: %v", sinkErr)
	}
	c := sinkAnalysis.Correction
	if c == nil || c.Type != reflection.InputFix || string(c.ModifiedInput) != string(fixedInput) {
		b.Fatalf("last Analyze: got correction %+v, want an InputFix to %s", c, fixedInput)
	}
}

// alternatingClient answers the first request of every pair with bad and the
// second with good: each Analyze that repairs once gets an unusable answer,
// then a usable one.
type alternatingClient struct {
	bad, good openai.ChatCompletionResponse
	calls     int
}

func (c *alternatingClient) CreateChatCompletion(_ context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	sinkPromptLen = len(req.Messages[len(req.Messages)-1].Content)
	c.calls++
	if c.calls%2 == 1 {
		return c.bad, nil
	}
	return c.good, nil
}

func cannedResponse(content string) openai.ChatCompletionResponse {
	return openai.ChatCompletionResponse{
		ID:    "chatcmpl-bench",
		Model: openai.GPT4oMini,
		Choices: []openai.ChatCompletionChoice{{
			Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content},
			FinishReason: openai.FinishReasonStop,
		}},
		Usage: openai.Usage{PromptTokens: 400, CompletionTokens: 80, TotalTokens: 480},
	}
}

// Unusable first answers for BenchmarkLLMRepair: one of the wrong shape (a
// severity outside the enum), one whose InputFix fails the tool schema (an
// empty path against minLength 1).
var (
	shapeErrorAnswer  = strings.Replace(inputFixAnswer, `"severity":"low"`, `"severity":"minor"`, 1)
	schemaErrorAnswer = strings.Replace(inputFixAnswer, `{\"path\":\"docs/notes.md\"}`, `{\"path\":\"\"}`, 1)
)

// BenchmarkLLMRepair measures what one repair round adds to
// llm.Reflector.Analyze apart from the network, with the tool schema cached:
//
//   - none: the first answer is accepted (as cache=warm above), the
//     baseline of the same run;
//   - shape: the first answer does not match the response schema; the
//     conversation is sent again with the answer and the complaint, and the
//     second answer is accepted;
//   - inputfix: the first answer's InputFix fails the tool schema, likewise;
//   - exhausted: both answers fail (repair rounds 1), and Analyze returns
//     the error quoting the last one.
//
// Each op is one Analyze: one request for none, two for the others.
func BenchmarkLLMRepair(b *testing.B) {
	ctx := context.Background()
	good := cannedResponse(inputFixAnswer)
	cases := []struct {
		name    string
		client  *alternatingClient
		wantErr bool
	}{
		{"none", &alternatingClient{bad: good, good: good}, false},
		{"shape", &alternatingClient{bad: cannedResponse(shapeErrorAnswer), good: good}, false},
		{"inputfix", &alternatingClient{bad: cannedResponse(schemaErrorAnswer), good: good}, false},
		{"exhausted", &alternatingClient{bad: cannedResponse(shapeErrorAnswer), good: cannedResponse(shapeErrorAnswer)}, true},
	}
	for _, c := range cases {
		b.Run("repair="+c.name, func(b *testing.B) {
			r := llm.New(c.client)
			f := llmFailure(toolSchemaDoc("Input of read_file."))
			sinkAnalysis, sinkErr = r.Analyze(ctx, f)
			c.client.calls = 0
			for b.Loop() {
				sinkAnalysis, sinkErr = r.Analyze(ctx, f)
			}
			if c.wantErr {
				if sinkErr == nil {
					b.Fatal("last Analyze: no error, want one")
				}
				return
			}
			checkAnalysis(b)
		})
	}
}
