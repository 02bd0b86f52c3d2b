package reflectionmcp

import (
	"github.com/loopctl-go/reflection"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Effect returns what running the named tool a second time does, as the
// server's annotations of it say: it is the effect func for
// reflection.WithEffects, so the Driver does not retry blindly a tool that
// may already have acted.
//
//   - readOnlyHint true: reflection.EffectReadOnly;
//   - otherwise idempotentHint true: reflection.EffectIdempotent;
//   - otherwise, annotations or not: reflection.EffectNonIdempotent, the
//     MCP specification's own default (idempotentHint defaults to false,
//     and a tool without annotations is assumed to modify its world).
//
// destructiveHint and openWorldHint say nothing about a second run and are
// not read. A tool the server does not list (or any tool before Load
// succeeds) is reflection.EffectUndeclared, which the Driver treats as not
// idempotent.
//
// Annotations are hints from the server, and the specification asks
// clients not to base decisions on those of an untrusted server: a server
// that marks a tool read-only makes the Driver retry it freely. Give
// t.Effect to WithEffects only for servers you trust; for any other, give
// effects of your own.
func (t *Tools) Effect(name string) reflection.Effect {
	l := t.list.Load()
	if l == nil {
		return reflection.EffectUndeclared
	}
	i, ok := l.byName[name]
	if !ok {
		return reflection.EffectUndeclared
	}
	return l.effects[i]
}

// annotatedEffect is the effect a tool's annotations declare (nil: none).
func annotatedEffect(a *mcp.ToolAnnotations) reflection.Effect {
	switch {
	case a == nil:
		return reflection.EffectNonIdempotent
	case a.ReadOnlyHint:
		return reflection.EffectReadOnly
	case a.IdempotentHint: // meaningful only when the tool is not read-only
		return reflection.EffectIdempotent
	}
	return reflection.EffectNonIdempotent
}
