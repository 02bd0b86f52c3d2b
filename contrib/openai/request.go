package reflectionopenai

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
	goopenai "github.com/sashabaranov/go-openai"
)

// newParams translates a go-openai request into openai-go's, or says which
// of its fields cannot be translated.
func newParams(req goopenai.ChatCompletionRequest) (openai.ChatCompletionNewParams, error) {
	if unset := untranslated(req); len(unset) > 0 {
		return openai.ChatCompletionNewParams{}, fmt.Errorf("reflectionopenai: request sets %s, which this client does not translate", strings.Join(unset, ", "))
	}
	p := openai.ChatCompletionNewParams{Model: req.Model}
	p.Messages = make([]openai.ChatCompletionMessageParamUnion, len(req.Messages))
	for i, m := range req.Messages {
		msg, err := messageParam(m)
		if err != nil {
			return openai.ChatCompletionNewParams{}, fmt.Errorf("reflectionopenai: message %d (%s): %w", i, m.Role, err)
		}
		p.Messages[i] = msg
	}
	format, err := responseFormat(req.ResponseFormat)
	if err != nil {
		return openai.ChatCompletionNewParams{}, fmt.Errorf("reflectionopenai: response format: %w", err)
	}
	p.ResponseFormat = format

	// go-openai leaves zero values out of the request, so they are left out
	// here too.
	if req.Temperature != 0 {
		p.Temperature = param.NewOpt(float32Value(req.Temperature))
	}
	if req.TopP != 0 {
		p.TopP = param.NewOpt(float32Value(req.TopP))
	}
	if req.PresencePenalty != 0 {
		p.PresencePenalty = param.NewOpt(float32Value(req.PresencePenalty))
	}
	if req.FrequencyPenalty != 0 {
		p.FrequencyPenalty = param.NewOpt(float32Value(req.FrequencyPenalty))
	}
	if req.MaxCompletionTokens != 0 {
		p.MaxCompletionTokens = param.NewOpt(int64(req.MaxCompletionTokens))
	}
	if req.MaxTokens != 0 {
		p.MaxTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if req.N != 0 {
		p.N = param.NewOpt(int64(req.N))
	}
	if req.Seed != nil {
		p.Seed = param.NewOpt(int64(*req.Seed))
	}
	if len(req.Stop) > 0 {
		p.Stop.OfStringArray = req.Stop
	}
	if len(req.LogitBias) > 0 {
		p.LogitBias = make(map[string]int64, len(req.LogitBias))
		for token, bias := range req.LogitBias {
			p.LogitBias[token] = int64(bias)
		}
	}
	if req.User != "" {
		p.User = param.NewOpt(req.User)
	}
	if req.SafetyIdentifier != "" {
		p.SafetyIdentifier = param.NewOpt(req.SafetyIdentifier)
	}
	if req.Store {
		p.Store = param.NewOpt(true)
	}
	if len(req.Metadata) > 0 {
		p.Metadata = shared.Metadata(req.Metadata)
	}
	p.ReasoningEffort = shared.ReasoningEffort(req.ReasoningEffort)
	p.ServiceTier = openai.ChatCompletionNewParamsServiceTier(req.ServiceTier)
	p.Verbosity = openai.ChatCompletionNewParamsVerbosity(req.Verbosity)
	return p, nil
}

// untranslated names the fields of req that newParams does not carry and
// that are set.
func untranslated(req goopenai.ChatCompletionRequest) []string {
	var set []string
	add := func(on bool, name string) {
		if on {
			set = append(set, name)
		}
	}
	add(req.Stream, "stream")
	add(req.StreamOptions != nil, "stream_options")
	add(len(req.Tools) > 0, "tools")
	add(req.ToolChoice != nil, "tool_choice")
	add(req.ParallelToolCalls != nil, "parallel_tool_calls")
	add(len(req.Functions) > 0, "functions")
	add(req.FunctionCall != nil, "function_call")
	add(req.LogProbs, "logprobs")
	add(req.TopLogProbs != 0, "top_logprobs")
	add(req.Prediction != nil, "prediction")
	add(len(req.ChatTemplateKwargs) > 0, "chat_template_kwargs")
	add(len(req.GuidedChoice) > 0, "guided_choice")
	return set
}

// float32Value converts a go-openai float32 to the float64 openai-go sends,
// keeping the decimal value go-openai would have sent: 0.2, not
// 0.20000000298023224.
func float32Value(v float32) float64 {
	f, err := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
	if err != nil { // not reachable: FormatFloat's output always parses
		return float64(v)
	}
	return f
}

// responseFormat translates go-openai's response format.
func responseFormat(f *goopenai.ChatCompletionResponseFormat) (openai.ChatCompletionNewParamsResponseFormatUnion, error) {
	var u openai.ChatCompletionNewParamsResponseFormatUnion
	if f == nil {
		return u, nil
	}
	if f.JSONSchema != nil && f.Type != goopenai.ChatCompletionResponseFormatTypeJSONSchema {
		return u, fmt.Errorf("type %q with a json_schema", f.Type)
	}
	switch f.Type {
	case goopenai.ChatCompletionResponseFormatTypeText:
		u.OfText = &shared.ResponseFormatTextParam{}
	case goopenai.ChatCompletionResponseFormatTypeJSONObject:
		u.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	case goopenai.ChatCompletionResponseFormatTypeJSONSchema:
		s := f.JSONSchema
		if s == nil {
			return u, errors.New("type json_schema without a json_schema")
		}
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: s.Name, Strict: param.NewOpt(s.Strict)}
		if s.Description != "" {
			js.Description = param.NewOpt(s.Description)
		}
		if s.Schema != nil {
			schema, err := json.Marshal(s.Schema)
			if err != nil {
				return u, fmt.Errorf("schema of %q: %w", s.Name, err)
			}
			js.Schema = json.RawMessage(schema)
		}
		u.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	default:
		return u, fmt.Errorf("unknown type %q", f.Type)
	}
	return u, nil
}
