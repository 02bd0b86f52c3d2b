// Package apisnapshot lists the exported API of every module of this
// repository, one line per name, in the style of the Go project's api/*.txt:
//
//	pkg github.com/loopctl-go/reflection, func NewDriver(...Option) *Driver
//	pkg github.com/loopctl-go/reflection, method (*Driver) Run(context.Context, ToolCall, DispatchFunc) (ToolResult, error)
//	pkg github.com/loopctl-go/reflection, type ToolCall struct, Name string
//	pkg github.com/loopctl-go/reflection, const EffectReadOnly Effect
//	pkg github.com/loopctl-go/reflection, const EffectReadOnly = 1
//
// The lists are checked in under api/, one file per module, and a test
// fails when the exported API and the lists differ, printing the lines
// added and removed; go run ./internal/cmd/apisnapshot -w writes them anew.
// It reads the source alone (go/parser and go/printer, no type-checking),
// so it needs nothing but Go and the repository, and it imports only the
// standard library.
//
// What a line shows: a func or method's parameter and result types without
// their names; a struct's exported fields and embedded types; an
// interface's methods, embedded interfaces, and whether it has unexported
// methods; func types without parameter names; a const's type when the source says it (or an iota group
// carries it) and its value, worked out when it is made of literals and
// iota, else as written; a var's type when the source says it or its
// initializer shows it (else the name alone). Files are chosen
// for linux/amd64 by their build constraints. Packages named main, internal
// packages and test files hold no API.
package apisnapshot

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Module is one module of the repository and its API lines.
type Module struct {
	Path  string   // the module path
	Dir   string   // its directory, relative to the repository's root
	Lines []string // sorted
}

// File returns the path, relative to the repository's root, of the file
// that holds m's lines: api/<module path below the root module's, / as _>.txt,
// api/reflection.txt for the root module.
func (m Module) File(rootPath string) string {
	name := strings.TrimPrefix(strings.TrimPrefix(m.Path, rootPath), "/")
	if name == "" {
		name = rootPath[strings.LastIndex(rootPath, "/")+1:]
	}
	return filepath.Join("api", strings.ReplaceAll(name, "/", "_")+".txt")
}

// FindRoot returns the repository's root above dir: the first directory,
// dir or one of its parents, whose go.mod declares module path.
func FindRoot(dir, path string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if p, err := modulePath(filepath.Join(d, "go.mod")); err == nil && p == path {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("apisnapshot: no go.mod of %s above %s", path, dir)
		}
	}
}

// Scan lists the API of every module under root, the repository's root,
// skipping hidden directories, testdata and vendor. A module whose path has
// an internal element holds no API and is left out.
func Scan(root string) ([]Module, error) {
	var mods []*Module
	byDir := map[string]*Module{}
	pkgFiles := map[string][]string{} // directory -> its .go files
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		switch {
		case name == "go.mod":
			path, err := modulePath(p)
			if err != nil {
				return err
			}
			m := &Module{Path: path, Dir: filepath.ToSlash(rel)}
			mods = append(mods, m)
			byDir[rel] = m
		case strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go"):
			pkgFiles[rel] = append(pkgFiles[rel], p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", "amd64", false
	for dir, files := range pkgFiles {
		m, modDir := owner(byDir, dir)
		if m == nil {
			continue
		}
		sub, _ := filepath.Rel(modDir, dir)
		path := m.Path
		if sub != "." {
			path += "/" + filepath.ToSlash(sub)
		}
		if internal(path) {
			continue
		}
		lines, err := packageAPI(&ctx, path, files)
		if err != nil {
			return nil, err
		}
		m.Lines = append(m.Lines, lines...)
	}
	out := make([]Module, 0, len(mods))
	for _, m := range mods {
		if internal(m.Path) {
			continue
		}
		sort.Strings(m.Lines)
		m.Lines = slices.Compact(m.Lines)
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// owner returns the module whose directory is dir or holds it, nearest
// first, and that directory.
func owner(byDir map[string]*Module, dir string) (*Module, string) {
	for d := dir; ; d = filepath.Dir(d) {
		if m, ok := byDir[d]; ok {
			return m, d
		}
		if d == "." || d == filepath.Dir(d) {
			return nil, ""
		}
	}
}

// internal reports whether path has an element named internal.
func internal(path string) bool {
	return slices.Contains(strings.Split(path, "/"), "internal")
}

// modulePath reads the module line of a go.mod file.
func modulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", fmt.Errorf("apisnapshot: %s has no module line", gomod)
}

// packageAPI returns the API lines of the package made of files, its import
// path being path; none for a main package.
func packageAPI(ctx *build.Context, path string, files []string) ([]string, error) {
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range files {
		if ok, err := ctx.MatchFile(filepath.Dir(name), filepath.Base(name)); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "main" {
			return nil, nil
		}
		parsed = append(parsed, f)
	}
	w := &writer{fset: fset, prefix: "pkg " + path + ", ", funcs: map[string]*ast.FuncType{}}
	for _, f := range parsed {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() {
				w.funcs[fn.Name.Name] = fn.Type
			}
		}
	}
	for _, f := range parsed {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				w.funcDecl(d)
			case *ast.GenDecl:
				w.genDecl(d)
			}
		}
	}
	return w.lines, errors.Join(w.errs...)
}

// writer collects the lines of one package.
type writer struct {
	fset   *token.FileSet
	prefix string
	lines  []string
	errs   []error
	funcs  map[string]*ast.FuncType // the package's exported functions, for a var's type
}

func (w *writer) add(format string, args ...any) {
	w.lines = append(w.lines, w.prefix+fmt.Sprintf(format, args...))
}

// typ prints a type on one line, its func types without parameter names
// (renaming a parameter does not change the API).
func (w *writer) typ(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.FuncType:
		return "func" + w.signature(t)
	case *ast.StarExpr:
		return "*" + w.typ(t.X)
	case *ast.Ellipsis:
		return "..." + w.typ(t.Elt)
	case *ast.ArrayType:
		if t.Len == nil {
			return "[]" + w.typ(t.Elt)
		}
		return "[" + w.expr(t.Len) + "]" + w.typ(t.Elt)
	case *ast.MapType:
		return "map[" + w.typ(t.Key) + "]" + w.typ(t.Value)
	case *ast.ChanType:
		switch t.Dir {
		case ast.SEND:
			return "chan<- " + w.typ(t.Value)
		case ast.RECV:
			return "<-chan " + w.typ(t.Value)
		}
		return "chan " + w.typ(t.Value)
	case *ast.ParenExpr:
		return "(" + w.typ(t.X) + ")"
	}
	return w.expr(e)
}

// expr prints e on one line.
func (w *writer) expr(e ast.Expr) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, w.fset, e); err != nil {
		w.errs = append(w.errs, err)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func (w *writer) funcDecl(fn *ast.FuncDecl) {
	if !fn.Name.IsExported() {
		return
	}
	if fn.Recv == nil {
		w.add("func %s%s%s", fn.Name.Name, w.typeParams(fn.Type.TypeParams), w.signature(fn.Type))
		return
	}
	recv := fn.Recv.List[0].Type
	base := recv
	if star, ok := base.(*ast.StarExpr); ok {
		base = star.X
	}
	switch b := base.(type) {
	case *ast.IndexExpr:
		base = b.X
	case *ast.IndexListExpr:
		base = b.X
	}
	if id, ok := base.(*ast.Ident); !ok || !id.IsExported() {
		return // a method of an unexported type is not part of the API
	}
	w.add("method (%s) %s%s", w.expr(recv), fn.Name.Name, w.signature(fn.Type))
}

// typeParams prints a type parameter list, or "".
func (w *writer) typeParams(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	var parts []string
	for _, f := range fl.List {
		names := make([]string, len(f.Names))
		for i, n := range f.Names {
			names[i] = n.Name
		}
		parts = append(parts, strings.Join(names, ", ")+" "+w.expr(f.Type))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// signature prints a func type's parameters and results, without names.
func (w *writer) signature(ft *ast.FuncType) string {
	s := "(" + strings.Join(w.types(ft.Params), ", ") + ")"
	results := w.types(ft.Results)
	switch {
	case len(results) == 1 && !strings.Contains(results[0], " "):
		s += " " + results[0]
	case len(results) > 0:
		s += " (" + strings.Join(results, ", ") + ")"
	}
	return s
}

// types lists the types of a field list, one per name.
func (w *writer) types(fl *ast.FieldList) []string {
	if fl == nil {
		return nil
	}
	var out []string
	for _, f := range fl.List {
		t := w.typ(f.Type)
		for range max(len(f.Names), 1) {
			out = append(out, t)
		}
	}
	return out
}

func (w *writer) genDecl(d *ast.GenDecl) {
	var (
		lastType ast.Expr // what an implicit const spec repeats
		lastVals []ast.Expr
	)
	for iota, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			w.typeSpec(s)
		case *ast.ValueSpec:
			if d.Tok == token.CONST {
				if s.Type != nil || len(s.Values) > 0 {
					lastType, lastVals = s.Type, s.Values
				}
				w.constSpec(s, lastType, lastVals, iota)
			} else {
				w.varSpec(s)
			}
		}
	}
}

func (w *writer) constSpec(s *ast.ValueSpec, typ ast.Expr, vals []ast.Expr, iota int) {
	for i, n := range s.Names {
		if !n.IsExported() {
			continue
		}
		var val ast.Expr
		if i < len(vals) {
			val = vals[i]
		}
		v, known := evalConst(val, iota)
		switch {
		case typ != nil:
			w.add("const %s %s", n.Name, w.typ(typ))
		case known:
			w.add("const %s ideal-%s", n.Name, idealKind(v))
		}
		switch {
		case known:
			w.add("const %s = %s", n.Name, v.ExactString())
		case val != nil:
			w.add("const %s = %s", n.Name, w.expr(val))
		}
	}
}

// evalConst works out a constant expression made of literals, iota,
// parentheses and operators; ok is false for anything else.
func evalConst(e ast.Expr, iota int) (v constant.Value, ok bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		return v, v.Kind() != constant.Unknown
	case *ast.Ident:
		switch e.Name {
		case "iota":
			return constant.MakeInt64(int64(iota)), true
		case "true", "false":
			return constant.MakeBool(e.Name == "true"), true
		}
	case *ast.ParenExpr:
		return evalConst(e.X, iota)
	case *ast.UnaryExpr:
		x, ok := evalConst(e.X, iota)
		if !ok || (e.Op != token.SUB && e.Op != token.ADD && e.Op != token.XOR && e.Op != token.NOT) {
			return nil, false
		}
		return constant.UnaryOp(e.Op, x, 0), true
	case *ast.BinaryExpr:
		x, okX := evalConst(e.X, iota)
		y, okY := evalConst(e.Y, iota)
		if !okX || !okY {
			return nil, false
		}
		switch e.Op {
		case token.SHL, token.SHR:
			n, exact := constant.Uint64Val(y)
			if !exact || x.Kind() != constant.Int {
				return nil, false
			}
			return constant.Shift(x, e.Op, uint(n)), true
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return constant.MakeBool(constant.Compare(x, e.Op, y)), true
		case token.QUO:
			if constant.Sign(y) == 0 {
				return nil, false
			}
			if x.Kind() == constant.Int && y.Kind() == constant.Int {
				return constant.BinaryOp(x, token.QUO_ASSIGN, y), true // integer division
			}
		}
		defer func() {
			if recover() != nil {
				v, ok = nil, false
			}
		}()
		return constant.BinaryOp(x, e.Op, y), true
	}
	return nil, false
}

// idealKind names an untyped constant's kind as the Go project's API
// files do.
func idealKind(v constant.Value) string {
	switch v.Kind() {
	case constant.Bool:
		return "bool"
	case constant.String:
		return "string"
	case constant.Int:
		return "int"
	case constant.Float:
		return "float"
	case constant.Complex:
		return "complex"
	}
	return "unknown"
}

func (w *writer) varSpec(s *ast.ValueSpec) {
	for i, n := range s.Names {
		if !n.IsExported() {
			continue
		}
		if s.Type != nil {
			w.add("var %s %s", n.Name, w.typ(s.Type))
			continue
		}
		var val ast.Expr
		if len(s.Values) == len(s.Names) {
			val = s.Values[i]
		}
		if t := w.varType(val); t != "" {
			w.add("var %s %s", n.Name, t)
		} else {
			w.add("var %s", n.Name) // a type only a type-checker could tell
		}
	}
}

// varType is the type an initializer shows without type-checking, or "".
func (w *writer) varType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.CompositeLit:
		if e.Type != nil {
			return w.typ(e.Type)
		}
	case *ast.UnaryExpr:
		if lit, ok := e.X.(*ast.CompositeLit); ok && e.Op == token.AND && lit.Type != nil {
			return "*" + w.typ(lit.Type)
		}
	case *ast.BasicLit:
		return map[token.Token]string{token.INT: "int", token.FLOAT: "float64", token.STRING: "string", token.CHAR: "rune"}[e.Kind]
	case *ast.FuncLit:
		return "func" + w.signature(e.Type)
	case *ast.CallExpr:
		switch fn := e.Fun.(type) {
		case *ast.SelectorExpr:
			if pkg, ok := fn.X.(*ast.Ident); ok && (pkg.Name == "errors" && fn.Sel.Name == "New" || pkg.Name == "fmt" && fn.Sel.Name == "Errorf") {
				return "error"
			}
		case *ast.Ident:
			if fn.Name == "new" && len(e.Args) == 1 {
				return "*" + w.typ(e.Args[0])
			}
			if ft := w.funcs[fn.Name]; ft != nil && ft.TypeParams == nil {
				if results := w.types(ft.Results); len(results) == 1 {
					return results[0]
				}
			}
		}
	}
	return ""
}

func (w *writer) typeSpec(s *ast.TypeSpec) {
	if !s.Name.IsExported() {
		return
	}
	name := s.Name.Name + w.typeParams(s.TypeParams)
	if s.Assign.IsValid() {
		w.add("type %s = %s", name, w.typ(s.Type))
		return
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		w.add("type %s struct", name)
		for _, f := range t.Fields.List {
			typ := w.typ(f.Type)
			if len(f.Names) == 0 {
				if embeddedName(f.Type).IsExported() {
					w.add("type %s struct, embedded %s", name, typ)
				}
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					w.add("type %s struct, %s %s", name, n.Name, typ)
				}
			}
		}
	case *ast.InterfaceType:
		var methods []string
		unexported := false
		for _, f := range t.Methods.List {
			ft, isMethod := f.Type.(*ast.FuncType)
			if !isMethod {
				w.add("type %s interface, embedded %s", name, w.typ(f.Type))
				continue
			}
			for _, n := range f.Names {
				if !n.IsExported() {
					unexported = true
					continue
				}
				methods = append(methods, n.Name)
				w.add("type %s interface, %s%s", name, n.Name, w.signature(ft))
			}
		}
		sort.Strings(methods)
		if unexported {
			methods = append(methods, "unexported methods")
		}
		if len(methods) == 0 {
			w.add("type %s interface {}", name)
		} else {
			w.add("type %s interface { %s }", name, strings.Join(methods, ", "))
		}
	default:
		w.add("type %s %s", name, w.typ(s.Type))
	}
}

// embeddedName is the name an embedded field is known by.
func embeddedName(e ast.Expr) *ast.Ident {
	switch t := e.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	case *ast.Ident:
		return t
	}
	return ast.NewIdent("_")
}

// Diff compares the API of the modules under root with the lists under
// root/api and returns, for each list that differs, the lines the API added
// ("+ ") and removed ("- "). A list whose module holds no API is expected
// absent. A list without a module is reported only in a checkout (root
// holds .git): a module's copy from the module proxy lacks the other
// modules, so their lists stand alone there.
func Diff(root string) (map[string][]string, error) {
	want, err := current(root)
	if err != nil {
		return nil, err
	}
	have, err := checkedIn(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for file, lines := range want {
		if d := diffLines(have[file], lines); len(d) > 0 {
			out[file] = d
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		for file, lines := range have {
			if _, ok := want[file]; !ok {
				out[file] = diffLines(lines, nil)
			}
		}
	}
	return out, nil
}

// Write writes the lists under root/api anew, and removes a list whose
// module holds no API.
func Write(root string) error {
	want, err := current(root)
	if err != nil {
		return err
	}
	have, err := checkedIn(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, "api"), 0o755); err != nil {
		return err
	}
	for file, lines := range want {
		if err := os.WriteFile(filepath.Join(root, file), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	for file := range have {
		if _, ok := want[file]; !ok {
			if err := os.Remove(filepath.Join(root, file)); err != nil {
				return err
			}
		}
	}
	return nil
}

// current returns the lists the API of the modules under root makes, by
// file, leaving out modules with no API.
func current(root string) (map[string][]string, error) {
	mods, err := Scan(root)
	if err != nil {
		return nil, err
	}
	rootPath, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, m := range mods {
		if len(m.Lines) > 0 {
			out[filepath.ToSlash(m.File(rootPath))] = m.Lines
		}
	}
	return out, nil
}

// checkedIn reads the lists under root/api, by file.
func checkedIn(root string) (map[string][]string, error) {
	names, err := filepath.Glob(filepath.Join(root, "api", "*.txt"))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		out["api/"+filepath.Base(name)] = lines
	}
	return out, nil
}

// diffLines returns the lines of now that were not in before ("+ ") and
// those of before that are not in now ("- "), sorted by line.
func diffLines(before, now []string) []string {
	was := map[string]bool{}
	for _, l := range before {
		was[l] = true
	}
	is := map[string]bool{}
	for _, l := range now {
		is[l] = true
	}
	var out []string
	for _, l := range now {
		if !was[l] {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range before {
		if !is[l] {
			out = append(out, "- "+l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][2:] < out[j][2:] })
	return out
}
