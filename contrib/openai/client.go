package reflectionopenai

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/loopctl-go/reflection/llm"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	goopenai "github.com/sashabaranov/go-openai"
)

// Client is an llm.Client over an openai-go client, so that one client
// configuration (key, base URL, HTTP client, retries, middleware) serves both
// the agent and the llm Reflector. It is safe for concurrent use when the
// openai-go client is.
type Client struct {
	client *openai.Client
	opts   []option.RequestOption
}

var _ llm.Client = (*Client)(nil)

// NewClient returns an llm.Client that sends every request through c, with
// opts added to each request after c's own options. A nil c gives a Client
// whose every request fails.
func NewClient(c *openai.Client, opts ...option.RequestOption) *Client {
	return &Client{client: c, opts: opts}
}

// CreateChatCompletion translates req, written in go-openai's types, into
// openai-go's request, sends it, and translates the answer back.
//
// The request keeps the model, the messages (system, developer, user with
// text and image parts, assistant with its tool calls, tool, function), the
// response format (text, json_object, json_schema with its name,
// description, schema and strict flag), temperature, top_p, max tokens and
// max completion tokens, n, stop, penalties, seed, logit bias, user, safety
// identifier, store, metadata, reasoning effort, service tier and verbosity.
// A request that sets anything else (streaming, tools, functions, tool
// choice, log probabilities, a prediction, vLLM extensions), or a message
// field its role cannot carry, is refused with an error before anything is
// sent: nothing is dropped silently.
//
// The answer keeps the id, object, created time, model, system fingerprint,
// service tier, the HTTP header, usage with its token details, and for each
// choice its index, finish reason and message (role, content, refusal, tool
// calls). go-openai has no custom tool call: one comes back with Type
// "custom", its name and its free text as Function.Name and
// Function.Arguments.
//
// An error from openai-go is wrapped, so errors.As still finds
// *openai.Error (the API's status, code and message) or the transport's
// error.
func (c *Client) CreateChatCompletion(ctx context.Context, req goopenai.ChatCompletionRequest) (goopenai.ChatCompletionResponse, error) {
	if c == nil || c.client == nil {
		return goopenai.ChatCompletionResponse{}, errors.New("reflectionopenai: client has no openai-go client")
	}
	params, err := newParams(req)
	if err != nil {
		return goopenai.ChatCompletionResponse{}, err
	}
	var raw *http.Response
	opts := append(append(make([]option.RequestOption, 0, len(c.opts)+1), c.opts...), option.WithResponseInto(&raw))
	completion, err := c.client.Chat.Completions.New(ctx, params, opts...)
	if err != nil {
		return goopenai.ChatCompletionResponse{}, fmt.Errorf("reflectionopenai: chat completion: %w", err)
	}
	resp := fromCompletion(completion)
	if raw != nil {
		resp.SetHeader(raw.Header)
	}
	return resp, nil
}
