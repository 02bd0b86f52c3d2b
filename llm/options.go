package llm

import (
	"context"
	"time"

	"github.com/loopctl-go/reflection"
	"github.com/sashabaranov/go-openai"
)

// Defaults of the options below.
const (
	DefaultMaxErrorBytes   = 4 << 10 // error text sent to the model, before the truncation marker
	DefaultMaxInputBytes   = 4 << 10 // tool input sent to the model, before the truncation marker
	DefaultRepairRounds    = 1       // repair requests after an unusable answer, per Analyze
	DefaultMaxCatalogBytes = 4 << 10 // tool catalog in the user message, before the truncation marker
)

// ResponseFormat says how a Reflector asks the server for structured output.
// Whatever the format, the answer is checked against ResponseSchema before it
// is decoded.
type ResponseFormat int

const (
	// ResponseFormatJSONSchema sends response_format {"type": "json_schema"}
	// with ResponseSchema in strict mode. It is the default.
	ResponseFormatJSONSchema ResponseFormat = iota
	// ResponseFormatJSONObject sends response_format {"type": "json_object"}
	// and states the schema in the system prompt, for servers that know JSON
	// mode but not json_schema. A modified_input written as a JSON object
	// rather than a string holding one is accepted.
	ResponseFormatJSONObject
	// ResponseFormatNone sends no response_format and states the schema in
	// the system prompt, for servers that reject response_format altogether.
	// A modified_input written as a JSON object is accepted, as with
	// ResponseFormatJSONObject.
	ResponseFormatNone
)

// Option configures a Reflector in New, or an input check in NewInputCheck.
type Option func(*config)

type config struct {
	systemPrompt string
	model        string
	validate     bool
	temperature  float32
	maxTokens    int
	timeout      time.Duration
	maxError     int
	maxInput     int
	redact       func(string) string
	format       ResponseFormat
	repairRounds int
	catalog      func(ctx context.Context) []reflection.ToolSchema
	maxCatalog   int
	hook         func(ctx context.Context, e Exchange)
	limits       limits
}

func defaultConfig() config {
	return config{
		systemPrompt: DefaultSystemPrompt,
		model:        openai.GPT4oMini,
		validate:     true,
		maxError:     DefaultMaxErrorBytes,
		maxInput:     DefaultMaxInputBytes,
		format:       ResponseFormatJSONSchema,
		repairRounds: DefaultRepairRounds,
		maxCatalog:   DefaultMaxCatalogBytes,
		limits:       defaultLimits(),
	}
}

// newConfig applies opts, skipping nil ones, to the defaults.
func newConfig(opts []Option) config {
	cfg := defaultConfig()
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	return cfg
}

// WithSystemPrompt replaces DefaultSystemPrompt entirely. An empty p keeps
// the default.
func WithSystemPrompt(p string) Option {
	return func(c *config) {
		if p != "" {
			c.systemPrompt = p
		}
	}
}

// WithModel sets the model named in every request. The default is
// openai.GPT4oMini; an empty model keeps it.
func WithModel(model string) Option {
	return func(c *config) {
		if model != "" {
			c.model = model
		}
	}
}

// WithSchemaValidation turns on or off the check of an InputFix's
// modified_input against the tool's input schema. It is on by default. An
// input check made with it off accepts every input.
func WithSchemaValidation(on bool) Option {
	return func(c *config) { c.validate = on }
}

// WithTemperature sets the sampling temperature. A value of 0 or below leaves
// the server's default (the client omits a zero temperature from the request).
func WithTemperature(t float32) Option {
	return func(c *config) { c.temperature = max(t, 0) }
}

// WithMaxTokens caps the tokens the model may generate for one answer
// (max_completion_tokens). A value of 0 or below leaves the server's default.
func WithMaxTokens(n int) Option {
	return func(c *config) { c.maxTokens = max(n, 0) }
}

// WithRequestTimeout bounds each request to the model, a repair request
// included, on top of the context given to Analyze. A value of 0 or below
// sets no timeout of its own.
func WithRequestTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = max(d, 0) }
}

// WithMaxErrorBytes caps the error text sent to the model; longer text is cut
// on a UTF-8 boundary and ends with a marker such as "…[truncated 812 bytes]".
// A value of 0 or below keeps DefaultMaxErrorBytes.
func WithMaxErrorBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxError = n
		}
	}
}

// WithMaxInputBytes caps the tool input sent to the model, after it is
// compacted, in the same way as WithMaxErrorBytes. A value of 0 or below keeps
// DefaultMaxInputBytes. It does not limit what is validated: see
// WithMaxInputTokens for that.
func WithMaxInputBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxInput = n
		}
	}
}

// WithRedactor sets a function that scrubs secrets. It runs over the error
// text, the tool input and the task before they are sent, over what a repair
// request sends back to the model, and over every part of an error that
// quotes a model answer, an input or a validator's message (which can quote
// a rejected value). It runs before truncation, so it sees the whole text,
// and it must be safe for concurrent use. A nil func leaves text as it is
// (the default). The system prompt, the tool schema and the tool catalog are
// the host's own text and are not passed through it.
func WithRedactor(redact func(string) string) Option {
	return func(c *config) { c.redact = redact }
}

// WithResponseFormat chooses how structured output is requested. A value
// other than the three constants keeps ResponseFormatJSONSchema.
func WithResponseFormat(f ResponseFormat) Option {
	return func(c *config) {
		switch f {
		case ResponseFormatJSONSchema, ResponseFormatJSONObject, ResponseFormatNone:
			c.format = f
		default:
			c.format = ResponseFormatJSONSchema
		}
	}
}

// WithRepairRounds sets how many times one Analyze may ask the model again
// after an unusable answer (see the package documentation, "Repair"). The
// default is DefaultRepairRounds, 1; 0 or a negative n turns repair off, so
// every Analyze makes exactly one request. No repair is tried once Analyze's
// context has ended.
func WithRepairRounds(n int) Option {
	return func(c *config) { c.repairRounds = max(n, 0) }
}

// WithToolCatalog gives the Reflector the tools a tool_change may name. tools
// is called once per Analyze, on its goroutine, with its context; the tools
// it returns, the failing one excepted, are listed by name and description
// after the failure, in the order given. A tool_change whose alternative_tool
// is not in the returned list is an unusable answer. A nil func (the
// default), or a nil or empty list, means no catalog: nothing is listed and
// any alternative_tool is accepted. tools is the host's code: a panic in it
// is not recovered by Analyze.
func WithToolCatalog(tools func(ctx context.Context) []reflection.ToolSchema) Option {
	return func(c *config) { c.catalog = tools }
}

// WithMaxCatalogBytes caps the tool catalog in the user message. Tools that
// do not fit are left out and a marker says how many; every tool's
// description is also cut at a quarter of the cap. A value of 0 or below
// keeps DefaultMaxCatalogBytes.
func WithMaxCatalogBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxCatalog = n
		}
	}
}

// WithExchangeHook sets a function called once per request to the model,
// failed requests included, after its answer has been judged, on the
// goroutine of Analyze and with its context. It sees what each request cost
// (token usage, latency) and what was wrong with the answer. Like a Driver's
// Observer, it is the host's code: a panic in it is not recovered. A nil func
// (the default) calls nothing.
func WithExchangeHook(hook func(ctx context.Context, e Exchange)) Option {
	return func(c *config) { c.hook = hook }
}
