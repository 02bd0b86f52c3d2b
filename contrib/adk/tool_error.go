package reflectionadk

// ToolError is the error a plugin or a wrapper hands ADK for a call that
// ended without success while its ctx is alive: the Driver gave up (Skip,
// Fail, AskUser), ran out of retries, or refused a retry (a breaker, the
// retry budget, the loop detector). ADK turns a tool's error into the
// function response {"error": <its text>}, which the model reads; its text
// is the Driver's result, so the model reads the latest failure and what
// recovery said about it. Handing it over as an error, not as a result,
// lets ADK's OnToolErrorCallbacks (a plugin's, such as retryandreflect's, and
// the agent's own) see the failure, and ADK's tool span record it.
type ToolError struct {
	// ID is the function call's ID, Tool the tool the model called.
	ID, Tool string
	// Content is the text the model reads: the Driver's result.
	Content string
	// Err is what ended the call: Run's error (exhaustion, a loop refusal)
	// when it had one, else the latest attempt's error (nil when the
	// latest failure was a result with an "error" key).
	Err error
}

// Error returns the text the model reads.
func (e *ToolError) Error() string { return e.Content }

// Unwrap returns Err, so errors.Is and errors.As reach the tool's own error.
func (e *ToolError) Unwrap() error { return e.Err }
