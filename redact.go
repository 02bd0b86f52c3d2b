package reflection

import (
	"regexp"
	"strings"
)

// Redacted is what RedactSecrets puts in place of a secret.
const Redacted = "[REDACTED]"

// secretShapes are the shapes of secret values RedactSecrets removes, whole.
// Each prefix is a provider's documented key format.
var secretShapes = regexp.MustCompile(strings.Join([]string{
	`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`, // PEM private keys
	`(?:\b|_)sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`,               // OpenAI, Anthropic
	`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`,                                 // Stripe secret and restricted keys
	`\bAIza[0-9A-Za-z_-]{35}`,                                                    // Google API keys
	`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,                                              // AWS access key IDs
	`\bgh[pousr]_[A-Za-z0-9]{36,}`,                                               // GitHub tokens
	`\bgithub_pat_[A-Za-z0-9_]{22,}`,                                             // GitHub fine-grained tokens
	`\bglpat-[A-Za-z0-9_-]{20,}`,                                                 // GitLab personal tokens
	`\bxox[abprs]-[A-Za-z0-9-]{10,}`,                                             // Slack tokens
	`\bhf_[A-Za-z0-9]{30,}`,                                                      // Hugging Face tokens
	`\b(?:gsk|xai)[-_][A-Za-z0-9]{20,}`,                                          // Groq, xAI
	`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+`,               // JSON Web Tokens
}, "|"))

// schemeCredential is the credential after an HTTP authentication scheme
// name; redactCredential keeps plain words ("Basic authentication").
var schemeCredential = regexp.MustCompile(`(?i)\b(?:bearer|basic)\s+([A-Za-z0-9._~+/=-]{8,})`)

// urlPassword is the password in a URL's user info.
var urlPassword = regexp.MustCompile(`(://[^/\s:@]+:)[^/\s@]+@`)

// secretJSONField is a JSON string field whose name says it holds a secret.
var secretJSONField = regexp.MustCompile(`(?i)("[^"\\]*(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|authorization|session[_-]?id|cookie)[^"\\]*"\s*:\s*)"(?:[^"\\]|\\.)*"`)

// secretAssignment is a key=value or key: value pair whose key says it holds
// a secret, as in a config line, a query string or an error message.
var secretAssignment = regexp.MustCompile(`(?i)\b((?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret)[A-Za-z0-9_-]*\s*[=:]\s*)([^\s&"',;]+)`)

// RedactSecrets returns s with common shapes of secrets replaced by
// Redacted: API keys of the major providers (OpenAI, Anthropic, Google, AWS
// access key IDs, GitHub, GitLab, Slack, Stripe, Hugging Face, Groq, xAI),
// JSON Web Tokens, PEM private keys, bearer and basic credentials, passwords
// in URLs, JSON string fields whose name says password, secret, token, key
// or the like, and key=value pairs of the same names. It is a stock function
// for WithRedactor and llm.WithRedactor; it knows only these shapes, so add
// your own for anything else. It is safe for concurrent use.
func RedactSecrets(s string) string {
	if s == "" {
		return s
	}
	s = secretShapes.ReplaceAllLiteralString(s, Redacted)
	s = schemeCredential.ReplaceAllStringFunc(s, redactCredential)
	s = urlPassword.ReplaceAllString(s, "${1}"+Redacted+"@")
	s = secretJSONField.ReplaceAllString(s, `${1}"`+Redacted+`"`)
	s = secretAssignment.ReplaceAllStringFunc(s, redactAssignment)
	return s
}

// redactCredential hides the credential of a scheme match when it looks like
// one: it holds a digit or a symbol, which words do not.
func redactCredential(m string) string {
	sub := schemeCredential.FindStringSubmatchIndex(m)
	cred := m[sub[2]:sub[3]]
	if !strings.ContainsAny(cred, "0123456789._~+/=-") {
		return m
	}
	return m[:sub[2]] + Redacted
}

// redactAssignment keeps the key of a key=value match and hides the value,
// unless an earlier pattern hid it already.
func redactAssignment(m string) string {
	sub := secretAssignment.FindStringSubmatch(m)
	if sub[2] == Redacted || strings.HasPrefix(sub[2], "[REDACTED") {
		return m
	}
	return sub[1] + Redacted
}
