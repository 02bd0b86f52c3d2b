package llm

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/loopctl-go/reflection"
	"github.com/sashabaranov/go-openai"
)

// Client is the one method of a chat-completions client that a Reflector
// uses. *openai.Client satisfies it, whatever OpenAI-compatible server it
// points at.
type Client interface {
	CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)
}

// Reflector is a reflection.Reflector that asks a language model to analyse
// each failure: one chat-completions request per call to Analyze. Its
// settings are fixed by New, and it is safe for concurrent use.
type Reflector struct {
	client  Client
	cfg     config
	system  string // the system message as sent
	format  *openai.ChatCompletionResponseFormat
	schemas *schemaCache
}

var _ reflection.Reflector = (*Reflector)(nil)

// New returns a Reflector that sends its requests through c. Nil options are
// ignored. A nil c gives a Reflector whose Analyze always fails with
// reflection.ErrInternal.
func New(c Client, opts ...Option) *Reflector {
	cfg := defaultConfig()
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	r := &Reflector{client: c, cfg: cfg, system: cfg.systemPrompt, schemas: newSchemaCache(schemaCacheSize)}
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
		r.system = schemaInPrompt(cfg.systemPrompt)
	case ResponseFormatNone:
		r.system = schemaInPrompt(cfg.systemPrompt)
	}
	return r
}

// Analyze sends f to the model and returns its analysis. The error text, the
// tool input and the task are redacted and truncated as configured before
// they are sent. Every failure (transport or API error, no choices, a
// refusal, an answer that does not match ResponseSchema, a modified_input
// that is not a JSON object, or an InputFix that does not validate against
// f.Schema) returns an error that wraps reflection.ErrInternal and keeps its
// cause reachable with errors.As.
func (r *Reflector) Analyze(ctx context.Context, f reflection.Failure) (reflection.FailureAnalysis, error) {
	if r == nil || r.client == nil {
		return reflection.FailureAnalysis{}, internal("no client", nil)
	}
	if r.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.cfg.timeout)
		defer cancel()
	}
	resp, err := r.client.CreateChatCompletion(ctx, r.request(f))
	if err != nil {
		return reflection.FailureAnalysis{}, internal("chat completion", err)
	}
	if len(resp.Choices) == 0 {
		return reflection.FailureAnalysis{}, internal("response has no choices", nil)
	}
	msg := resp.Choices[0].Message
	if msg.Refusal != "" {
		return reflection.FailureAnalysis{}, internal("model refused: "+msg.Refusal, nil)
	}
	a, err := parseAnswer([]byte(msg.Content))
	if err != nil {
		if resp.Choices[0].FinishReason == openai.FinishReasonLength {
			err = fmt.Errorf("%w (the answer was cut at the token limit)", err)
		}
		return reflection.FailureAnalysis{}, err
	}
	if err := r.checkInputFix(f, a); err != nil {
		return reflection.FailureAnalysis{}, err
	}
	return a, nil
}

// request builds the chat-completions request for f.
func (r *Reflector) request(f reflection.Failure) openai.ChatCompletionRequest {
	f.Task = r.scrub(f.Task, 0)
	user := render(f, r.scrub(compactText(f.Input), r.cfg.maxInput), r.scrub(f.Error, r.cfg.maxError))
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

// scrub redacts s and, when limit > 0, cuts it to at most limit bytes plus a
// marker.
func (r *Reflector) scrub(s string, limit int) string {
	if r.cfg.redact != nil {
		s = r.cfg.redact(s)
	}
	if limit > 0 {
		s = truncate(s, limit)
	}
	return s
}

// truncate cuts s to at most limit bytes, on a UTF-8 boundary, and appends a
// marker that says how many bytes were dropped.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[truncated " + strconv.Itoa(len(s)-cut) + " bytes]"
}

// checkInputFix validates an InputFix's modified input against the tool's
// input schema, when validation is on and there is something to check: a
// schema (an empty InputSchema constrains nothing) and a modified input.
func (r *Reflector) checkInputFix(f reflection.Failure, a reflection.FailureAnalysis) error {
	if !r.cfg.validate || f.Schema == nil || len(bytes.TrimSpace(f.Schema.InputSchema)) == 0 ||
		a.Correction == nil || a.Correction.Type != reflection.InputFix || a.Correction.ModifiedInput == nil {
		return nil
	}
	sch, err := r.schemas.get(f.Schema.InputSchema)
	if err != nil {
		return internal("tool schema for "+strconv.Quote(f.Tool)+" does not compile", err)
	}
	if err := validateJSON(sch, a.Correction.ModifiedInput); err != nil {
		return internal("modified_input does not match the schema of "+strconv.Quote(f.Tool), err)
	}
	return nil
}

// internal returns an error that wraps reflection.ErrInternal and, when
// cause is not nil, cause too.
func internal(what string, cause error) error {
	if cause == nil {
		return fmt.Errorf("llm: %s: %w", what, reflection.ErrInternal)
	}
	return fmt.Errorf("llm: %s: %w: %w", what, reflection.ErrInternal, cause)
}
