// Package llm provides a [reflection.Reflector] that asks a language model,
// through any OpenAI-compatible chat-completions server, why a tool call
// failed and how to fix it.
//
// # The request
//
// Each call to [Reflector.Analyze] sends one request with two messages: the
// system prompt ([DefaultSystemPrompt] unless [WithSystemPrompt] replaces it)
// and the failure rendered by [UserMessage]. By default the request asks for
// structured output in OpenAI's strict mode, with [ResponseSchema] named
// [SchemaName]. Servers that do not support json_schema can be asked for
// json_object or for plain text with [WithResponseFormat]; the schema then
// travels in the system prompt instead.
//
// Before the failure leaves the process, its error text and tool input are
// cut to a few KiB each ([WithMaxErrorBytes], [WithMaxInputBytes]) and can be
// scrubbed of secrets ([WithRedactor]).
//
// # The answer
//
// The first choice's message is the answer. Its JSON object is found (the
// whole text, a fenced block, or an object inside prose, for servers that
// ignore response_format), checked against [ResponseSchema], and decoded into
// a [reflection.FailureAnalysis]. The corrected input travels as a string
// holding a JSON object, because strict mode admits no free-form objects;
// Analyze decodes it into [reflection.Correction.ModifiedInput].
//
// With schema validation on (the default, see [WithSchemaValidation]), an
// InputFix is also checked against the tool's input schema, so a correction
// the tool would reject is caught before the retry. Each distinct tool schema
// is compiled once per Reflector and kept in a bounded cache. Compiling never
// reads files or the network: a $ref to another document is an error.
//
// # Errors
//
// Every failure of Analyze wraps [reflection.ErrInternal], and the cause
// stays reachable with [errors.As] (for example *openai.APIError for an API
// failure). A Driver answers any reflector error with Fail, so a broken
// model or server never triggers a blind retry.
package llm
