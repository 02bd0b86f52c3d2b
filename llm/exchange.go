package llm

import (
	"time"

	"github.com/sashabaranov/go-openai"
)

// Exchange is one request of an Analyze to the model and what came of it,
// as given to the hook set with WithExchangeHook. Summing Usage over the
// exchanges of one failure gives what its analysis cost.
type Exchange struct {
	// Round is 0 for the first request of an Analyze and 1, 2, … for the
	// repair requests that follow an unusable answer.
	Round int
	// Usage is the token usage the server reported for this request; zero
	// when it reported none (or the request failed).
	Usage openai.Usage
	// Latency runs from sending the request to having read its answer.
	Latency time.Duration
	// Err is what was wrong with this request or its answer (a transport or
	// API error, a refusal, an unusable answer): the error Analyze would
	// return if it stopped here, wrapping reflection.ErrInternal. It is nil
	// when the answer was accepted.
	Err error

	// Tool and Attempt are the failing tool and the Failure's Attempt that
	// the request was about.
	Tool    string
	Attempt int
	// Model is the model that answered, as the server named it, or the model
	// requested when the server named none.
	Model string
	// FinishReason is why the model stopped writing ("stop", "length", …).
	FinishReason openai.FinishReason
	// Answer is the text of the answer as the model wrote it, not redacted;
	// Refusal is the model's refusal, when it refused.
	Answer  string
	Refusal string
}
