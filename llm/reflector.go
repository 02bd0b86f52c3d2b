package llm

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/textcut"
	"github.com/sashabaranov/go-openai"
)

// Client is the one method of a chat-completions client that a Reflector
// uses. *openai.Client satisfies it, whatever OpenAI-compatible server it
// points at.
type Client interface {
	CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)
}

// Reflector is a reflection.Reflector that asks a language model to analyse
// each failure: one chat-completions request per call to Analyze, and up to
// WithRepairRounds more when an answer cannot be used. Its settings are fixed
// by New, and it is safe for concurrent use.
type Reflector struct {
	client  Client
	cfg     config
	system  string // the system message as sent
	format  *openai.ChatCompletionResponseFormat
	lenient bool // a modified_input written as an object is accepted
	schemas *schemaCache
}

var _ reflection.Reflector = (*Reflector)(nil)

// New returns a Reflector that sends its requests through c. Nil options are
// ignored. A nil c gives a Reflector whose Analyze always fails with
// reflection.ErrInternal.
func New(c Client, opts ...Option) *Reflector {
	cfg := newConfig(opts)
	r := &Reflector{client: c, cfg: cfg, system: cfg.systemPrompt, schemas: newSchemaCache(schemaCacheSize, cfg.limits)}
	switch cfg.format {
	case ResponseFormatJSONSchema:
		r.format = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name:   SchemaName,
				Schema: ResponseSchema(),
				Strict: true,
			},
		}
	case ResponseFormatJSONObject:
		r.format = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		r.system, r.lenient = schemaInPrompt(cfg.systemPrompt), true
	case ResponseFormatNone:
		r.system, r.lenient = schemaInPrompt(cfg.systemPrompt), true
	}
	return r
}

// Analyze sends f to the model and returns its analysis. The error text, the
// tool input and the task are redacted and truncated as configured before
// they are sent.
//
// When the answer cannot be used, Analyze asks again, up to WithRepairRounds
// times, telling the model what was wrong. Every failure returns an error
// that wraps reflection.ErrInternal and keeps its cause reachable with
// errors.As: a transport or API error, no choices, a refusal, an answer that
// is still unusable after the last repair (it does not match ResponseSchema,
// its modified_input is not a JSON object or does not validate against
// f.Schema, or its alternative_tool is not in the tool catalog), or a tool
// schema that does not compile or breaks a limit. The error of an unusable
// answer quotes its first 512 bytes.
func (r *Reflector) Analyze(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	if r == nil || r.client == nil {
		return reflection.FailureAnalysis{}, internal("no client", nil)
	}
	var tools []reflection.ToolSchema
	if r.cfg.catalog != nil {
		tools = r.cfg.catalog(ctx)
	}
	req := r.request(f, tools)
	for round := 0; ; round++ {
		a, ex, fix := r.ask(ctx, f, tools, &req, round)
		if r.cfg.hook != nil {
			r.cfg.hook(ctx, ex)
		}
		if ex.Err == nil {
			return a, nil
		}
		if fix == "" || round >= r.cfg.repairRounds || ctx.Err() != nil {
			return reflection.FailureAnalysis{}, ex.Err
		}
		req.Messages = append(req.Messages,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: r.echo(ex.Answer)},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: r.redacted(fix)},
		)
	}
}

// ask sends one request and judges its answer. It returns the analysis when
// the answer is usable; otherwise the exchange's Err says why and fix, when
// not empty, is what a repair request would ask of the model.
func (r *Reflector) ask(ctx context.Context, f reflection.Failure, tools []reflection.ToolSchema,
	req *openai.ChatCompletionRequest, round int) (reflection.FailureAnalysis, Exchange, string) {
	ex := Exchange{Round: round, Tool: f.Tool, Attempt: f.Attempt, Model: req.Model}
	resp, err := r.send(ctx, req, &ex)
	if err != nil {
		ex.Err = internal("chat completion", err)
		return reflection.FailureAnalysis{}, ex, ""
	}
	ex.Usage = resp.Usage
	if resp.Model != "" {
		ex.Model = resp.Model
	}
	if len(resp.Choices) == 0 {
		ex.Err = internal("response has no choices", nil)
		return reflection.FailureAnalysis{}, ex, ""
	}
	choice := &resp.Choices[0]
	ex.FinishReason, ex.Answer, ex.Refusal = choice.FinishReason, choice.Message.Content, choice.Message.Refusal
	if ex.Refusal != "" {
		ex.Err = internal("model refused: "+r.redacted(ex.Refusal), nil)
		return reflection.FailureAnalysis{}, ex, ""
	}
	a, p := r.judge(ctx, f, tools, ex.Answer)
	if p == nil {
		return a, ex, ""
	}
	cut := ex.FinishReason == openai.FinishReasonLength
	ex.Err = r.answerError(p, ex.Answer, cut)
	if p.fix == "" {
		return reflection.FailureAnalysis{}, ex, ""
	}
	fix := "Your answer cannot be used: " + p.fix
	if cut {
		fix = "Your answer was cut off at the token limit, so it cannot be used: " + p.fix
	}
	return reflection.FailureAnalysis{}, ex, fix + "\n\n" + repairClosing
}

// repairClosing ends every repair request.
const repairClosing = "Reply again with one complete JSON object that follows the shape and the rules above, and nothing else."

// send makes one request, under WithRequestTimeout, and measures its latency
// into ex when a hook will read it.
func (r *Reflector) send(ctx context.Context, req *openai.ChatCompletionRequest, ex *Exchange) (openai.ChatCompletionResponse, error) {
	if r.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.cfg.timeout)
		defer cancel()
	}
	if r.cfg.hook == nil {
		return r.client.CreateChatCompletion(ctx, *req)
	}
	start := time.Now()
	resp, err := r.client.CreateChatCompletion(ctx, *req)
	ex.Latency = time.Since(start)
	return resp, err
}

// judge parses the answer and checks its correction: against the tool
// catalog, and an InputFix against the tool's schema.
func (r *Reflector) judge(ctx context.Context, f reflection.Failure, tools []reflection.ToolSchema, text string) (reflection.FailureAnalysis, *problem) {
	a, p := parseAnswer([]byte(text), r.lenient)
	if p != nil {
		return reflection.FailureAnalysis{}, p
	}
	c := a.Correction
	if c != nil && c.Type == reflection.ToolChange && len(tools) > 0 && !inCatalog(tools, c.AlternativeTool) {
		return reflection.FailureAnalysis{}, &problem{
			what: "alternative_tool " + strconv.Quote(c.AlternativeTool) + " is not in the tool catalog",
			fix: "at /correction/alternative_tool, " + strconv.Quote(c.AlternativeTool) +
				" is not one of the tools listed as available. Name one of them, or give another kind of correction.",
		}
	}
	if p := r.checkInputFix(ctx, f, a); p != nil {
		return reflection.FailureAnalysis{}, p
	}
	return a, nil
}

// request builds the first chat-completions request for f.
func (r *Reflector) request(f reflection.Failure, tools []reflection.ToolSchema) openai.ChatCompletionRequest {
	f.Task = r.scrub(f.Task, 0)
	user := render(f, r.scrub(compactText(f.Input), r.cfg.maxInput), r.scrub(f.Error, r.cfg.maxError))
	if len(tools) > 0 {
		user += "\n\n" + renderCatalog(tools, f.Tool, r.cfg.maxCatalog)
	}
	return openai.ChatCompletionRequest{
		Model: r.cfg.model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: r.system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
		ResponseFormat:      r.format,
		Temperature:         r.cfg.temperature,
		MaxCompletionTokens: r.cfg.maxTokens,
	}
}

// maxEchoBytes bounds an unusable answer as it is sent back in a repair
// request. A usable answer is far shorter.
const maxEchoBytes = 8 << 10

// echo is an unusable answer as a repair request sends it back.
func (r *Reflector) echo(answer string) string {
	if answer == "" {
		return "(an empty answer)"
	}
	return r.scrub(answer, maxEchoBytes)
}

// scrub redacts s and, when limit > 0, cuts it to at most limit bytes plus a
// marker.
func (r *Reflector) scrub(s string, limit int) string {
	s = r.redacted(s)
	if limit > 0 {
		s = textcut.Cut(s, limit)
	}
	return s
}

// redacted returns s passed through the redactor, if one is set.
func (r *Reflector) redacted(s string) string {
	if r.cfg.redact != nil {
		return r.cfg.redact(s)
	}
	return s
}

// internal returns an error that wraps reflection.ErrInternal and, when
// cause is not nil, cause too.
func internal(what string, cause error) error {
	if cause == nil {
		return fmt.Errorf("llm: %s: %w", what, reflection.ErrInternal)
	}
	return fmt.Errorf("llm: %s: %w: %w", what, reflection.ErrInternal, cause)
}
