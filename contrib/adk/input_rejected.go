package reflectionadk

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/adk/v2/tool"
)

// functionToolPackage is the package of ADK's function tools
// (functiontool.New): such a tool checks the model's arguments against its
// input schema before its handler runs, and fails without running it when
// they do not match.
const functionToolPackage = "google.golang.org/adk/v2/tool/functiontool"

// inputRejected reports whether a failed attempt of t with args was a
// function tool's refusal of its arguments: t is one of functiontool's, and
// args do not match the schema it declares, the one it checks before its
// handler. Such a failure certainly did not act. Any other tool's failure
// may have, whatever its arguments.
func inputRejected(t tool.Tool, args map[string]any) bool {
	typ := reflect.TypeOf(t)
	if typ == nil {
		return false
	}
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.PkgPath() != functionToolPackage {
		return false
	}
	d, ok := t.(declarer)
	if !ok {
		return false
	}
	decl := d.Declaration()
	if decl == nil {
		return false
	}
	schema, ok := decl.ParametersJsonSchema.(*jsonschema.Schema)
	if !ok || schema == nil {
		return false
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return false
	}
	var value any = map[string]any{}
	if args != nil {
		value = args
	}
	return resolved.Validate(value) != nil
}
