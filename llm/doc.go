// Package llm provides a [reflection.Reflector] that asks a language model,
// through any OpenAI-compatible chat-completions server, why a tool call
// failed and how to fix it.
//
// # The request
//
// Each call to [Reflector.Analyze] first sends one request with two
// messages: the system prompt ([DefaultSystemPrompt] unless
// [WithSystemPrompt] replaces it) and the failure rendered by [UserMessage].
// By default the request asks for structured output in OpenAI's strict mode,
// with [ResponseSchema] named [SchemaName]. Servers that do not support
// json_schema can be asked for json_object or for plain text with
// [WithResponseFormat]; the schema then travels in the system prompt instead.
//
// Before the failure leaves the process, its error text and tool input are
// cut to a few KiB each ([WithMaxErrorBytes], [WithMaxInputBytes]) and can be
// scrubbed of secrets ([WithRedactor]). With [WithToolCatalog], the other
// tools the agent has are listed after the failure, so a tool_change can name
// one that exists.
//
// # The answer
//
// The first choice's message is the answer. Its JSON object is found (the
// whole text, a fenced block, or an object inside prose, for servers that
// ignore response_format), checked against [ResponseSchema], and decoded into
// a [reflection.FailureAnalysis]. The corrected input travels as a string
// holding a JSON object, because strict mode admits no free-form objects;
// Analyze decodes it into [reflection.Correction.ModifiedInput]. In the
// json_object and plain formats, a modified_input written as an object is
// accepted too.
//
// With schema validation on (the default, see [WithSchemaValidation]), an
// InputFix is also checked against the tool's input schema, so a correction
// the tool would reject is caught before the retry. Each distinct tool schema
// is compiled once per Reflector and kept in a bounded cache. Compiling never
// reads files or the network: a $ref to another document is an error.
//
// # Repair
//
// An answer that cannot be used (no JSON object, the wrong shape, a
// modified_input that is not an object or fails the tool's schema, an
// alternative_tool not in the catalog) is not thrown away at once: the
// Reflector sends the same conversation again, with the answer as an
// assistant message and a user message that says what was wrong, in the
// validator's words with the JSON pointer, at most [WithRepairRounds] times
// (once by default). Transport errors, refusals, an empty choice list, a
// tool schema that cannot be used and an input that cannot be checked within
// the validation budget are not repaired: asking again would not change
// them. The hook set with
// [WithExchangeHook] sees every request, its token usage and latency: what
// recovery costs.
//
// # Limits
//
// Tool schemas increasingly come from third parties, and corrected inputs
// from a model: neither is trusted. Checking an input against a schema is
// bounded before any expensive work by limits on the schema (its size,
// nesting and number of objects, and its regular expressions: each pattern's
// compiled size, [WithMaxPatternSize], and what they cost together) and on
// the input (its nesting, number of values, and number literals), and during
// the work by a budget of checks per validation ([WithValidationBudget]) that
// counts, not times, so the answer is deterministic. The budget counts what
// the validator would otherwise do unseen: the names a schema requires, and
// every string of the input it must parse as a regular expression (format
// "regex", regexProperties), charged before the parse. Compiling and
// validating inside Analyze also stop when its context ends. A schema over a
// limit is an error naming the limit ([ErrLimitExceeded]). [NewHTTPClient]
// bounds what go-openai reads of a response.
//
// # Options and their defaults
//
//   - [WithModel]: openai.GPT4oMini. [WithSystemPrompt]: DefaultSystemPrompt.
//     [WithTemperature], [WithMaxTokens]: the server's defaults.
//   - [WithResponseFormat]: json_schema (strict); ResponseFormatJSONObject
//     and ResponseFormatNone for servers without it.
//   - [WithSchemaValidation]: on. [WithRepairRounds]: 1 (0 turns repair
//     off). [WithRequestTimeout]: none (it applies to each request, a repair
//     included).
//   - [WithToolCatalog]: none; [WithMaxCatalogBytes]: 4 KiB.
//   - [WithMaxErrorBytes], [WithMaxInputBytes]: 4 KiB each, cut with a
//     visible marker. [WithRedactor]: none (reflection.RedactSecrets is a
//     stock one; it scrubs what is sent and what errors quote).
//   - [WithExchangeHook]: none.
//   - Limits on a tool schema: [WithMaxSchemaBytes] 256 KiB,
//     [WithMaxSchemaDepth] 64, [WithMaxSchemaObjects] 2,000,
//     [WithMaxPatternSize] 10,000 instructions per pattern.
//   - Limits on an input: [WithMaxInputDepth] 32, [WithMaxInputTokens]
//     10,000; on a number literal anywhere: [WithMaxNumberLength] 100 bytes,
//     [WithMaxNumberExponent] 400.
//   - [WithValidationBudget]: 10,000 checks per validation.
//
// The limits refuse none of 1,263 real tool schemas measured when they were
// set (the largest: 25.6 KB, depth 13, 212 schema objects).
//
// # Checking inputs for a Driver
//
// An InputFix is checked against the schema of the tool that failed, but a
// later tool_change can bring that input to another tool. So the Driver
// checks every corrected call against the schema of the tool it is about to
// run. A Reflector has the InputCheck method the root package looks for: a Driver given
// [reflection.WithSchemas] and no input check of its own uses
// [Reflector.InputCheck], which shares the Reflector's compiled schemas,
// also when the Reflector sits in a [reflection.Chain] or behind a
// [reflection.NewCache]. [NewInputCheck] returns the same check for a Driver
// whose Reflector is something else ([reflection.WithInputCheck]). The check
// also refuses an object whose keys repeat, exactly or but for case, which a
// validator cannot see and Go's encoding/json decodes as one field.
//
// # Errors
//
// Every failure of Analyze wraps [reflection.ErrInternal], and the cause
// stays reachable with [errors.As] (for example *openai.APIError for an API
// failure). The error of an unusable answer quotes its first 512 bytes. A
// Driver answers any reflector error with Fail, so a broken model or server
// never triggers a blind retry.
package llm
