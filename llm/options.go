package llm

import (
	"time"

	"github.com/sashabaranov/go-openai"
)

// Defaults of the options below.
const (
	DefaultMaxErrorBytes = 4 << 10 // error text sent to the model, before the truncation marker
	DefaultMaxInputBytes = 4 << 10 // tool input sent to the model, before the truncation marker
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
	// mode but not json_schema.
	ResponseFormatJSONObject
	// ResponseFormatNone sends no response_format and states the schema in
	// the system prompt, for servers that reject response_format altogether.
	ResponseFormatNone
)

// Option configures a Reflector in New.
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
}

func defaultConfig() config {
	return config{
		systemPrompt: DefaultSystemPrompt,
		model:        openai.GPT4oMini,
		validate:     true,
		maxError:     DefaultMaxErrorBytes,
		maxInput:     DefaultMaxInputBytes,
		format:       ResponseFormatJSONSchema,
	}
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
// modified_input against the tool's input schema. It is on by default.
func WithSchemaValidation(on bool) Option {
	return func(c *config) { c.validate = on }
}

// WithTemperature sets the sampling temperature. A value of 0 or below leaves
// the server's default (the client omits a zero temperature from the request).
func WithTemperature(t float32) Option {
	return func(c *config) { c.temperature = max(t, 0) }
}

// WithMaxTokens caps the tokens the model may generate for one analysis
// (max_completion_tokens). A value of 0 or below leaves the server's default.
func WithMaxTokens(n int) Option {
	return func(c *config) { c.maxTokens = max(n, 0) }
}

// WithRequestTimeout bounds each request to the model, on top of the context
// given to Analyze. A value of 0 or below sets no timeout of its own.
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
// DefaultMaxInputBytes.
func WithMaxInputBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxInput = n
		}
	}
}

// WithRedactor sets a function that scrubs secrets from the error text, the
// tool input and the task before they are sent. It runs before truncation, so
// it sees the whole text, and it must be safe for concurrent use. A nil func
// sends the text as it is (the default).
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
