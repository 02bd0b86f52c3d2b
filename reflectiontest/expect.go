package reflectiontest

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
)

// What the model predicts for a scenario, and the shapes of its
// predictions.

// hardKind is the kind of hard error a call ends with.
type hardKind int

const (
	hardNone        hardKind = iota
	hardExhausted            // the sixth failed call and still Retry
	hardCanceled             // ctx was cancelled
	hardDeadline             // ctx's deadline passed
	hardWaitRefused          // a wait that could not end before the deadline
	hardLoop                 // the loop detector refused a dispatch
)

var hardNames = [...]string{"-", "exhausted", "canceled", "deadline passed", "wait refused", "loop detected"}

func (k hardKind) String() string { return hardNames[k] }

// text is what a failure text must look like: exact, or (for panics and
// broken errors, whose wording the rules leave open) containing some words.
type text struct {
	exact    string
	isExact  bool
	contains []string
}

func exactText(s string) text { return text{exact: s, isExact: true} }

func (p text) match(s string) bool {
	if p.isExact {
		return s == p.exact
	}
	if s == "" {
		return false
	}
	for _, c := range p.contains {
		if !strings.Contains(s, c) {
			return false
		}
	}
	return true
}

func (p text) String() string {
	if p.isExact {
		return fmt.Sprintf("%q", p.exact)
	}
	return fmt.Sprintf("text containing %q", p.contains)
}

var panicNilText = new(runtime.PanicNilError).Error()

// failureText is what the failure text of st must be when tool failed.
func (st *step) failureText(tool string) text {
	switch st.does {
	case doIsError, doError, doErrorWithResult, doNoEffect, doTimeout:
		return exactText(st.content)
	case doPanicString, doPanicError:
		return text{contains: []string{tool, st.content, "panic"}}
	case doPanicNil:
		return text{contains: []string{tool, panicNilText}}
	}
	return text{} // a typed nil or an Error that panics: any text but ""
}

// errWant is what Failure.Err must be for a failed attempt.
type errWant int

const (
	errNil      errWant = iota // a result with IsError: no error
	errReturned                // the error dispatch returned
	errPanic                   // a recovered panic: matches ErrPanicked
	errNoEffect                // matches reflection.ErrNoEffect
	errTimeout                 // matches context.DeadlineExceeded
)

func (st *step) errWant() errWant {
	switch st.does {
	case doIsError:
		return errNil
	case doPanicString, doPanicError, doPanicNil:
		return errPanic
	case doNoEffect:
		return errNoEffect
	case doTimeout:
		return errTimeout
	}
	return errReturned
}

// contentWant is what the Content of a call that did not succeed must say.
type contentWant struct {
	circuit      bool   // the breaker's words
	retryIn      int    // the seconds they say the breaker stays open
	afterFailure bool   // they follow the latest failure text
	budget       bool   // the latest failure text, then the budget's refusal
	acted        int    // dispatches that may have acted: a closing warning says so
	dispatches   int    // of how many
	loop         bool   // the loop detector's refusal, with the error's text
	fromErr      bool   // the hard error's own text: no attempt failed
	ask          bool   // the failure text, then a sentence that a human decision is needed
	prompt       string // the AskUser prompt in that sentence
	effect       bool   // the prompt is the effect guard's
	declined     bool   // then a sentence that a human declined
	reply        string // then the human's reply
}

// question is what the model expects a human to be asked.
type question struct {
	attempt    int
	prompt     string
	effect     bool // the effect guard's prompt, whose words are the machine's
	warned     bool // the strategy's prompt after the effect guard's warning
	dispatches int  // what Question.Dispatches says
	mayActed   int  // what Question.MayHaveActed says
}

// expect is the model's prediction for one scenario.
type expect struct {
	dispatched  []reflection.ToolCall
	failures    []reflection.Failure // what the Reflector sees (Error and Err checked apart)
	texts       []text               // the failure text of each failed attempt
	errs        []errWant            // Failure.Err of each failed attempt
	strategy    []int                // the attempts the strategy is asked about
	questions   []question
	verified    []reflection.ToolCall // what the verifier is asked about, in order
	filterCalls [][2]string
	corrected   []bool // per InputFix, ToolChange or human input: applied?
	dropped     int    // corrections dropped (warn logs)

	elapsed time.Duration
	outcome reflection.Outcome
	reason  reflection.Reason
	hard    hardKind
	success reflection.ToolResult // the result of a success
	content contentWant
	loop    reflection.LoopDetectedError
	tokens  int // the retry budget's tokens after the call
}
