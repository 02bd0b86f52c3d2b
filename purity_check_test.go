package reflection_test

// The check behind TestMachineIsPure: it type-checks the root package from
// source (the standard library from its export data, the module's internal
// packages from source too) and walks the machine's code and everything of
// the module it reaches. purity_test.go holds the rules it applies.

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// violation is one place that breaks a rule.
type violation struct {
	pos  token.Position
	what string
}

func (v violation) String() string { return v.pos.String() + ": " + v.what }

// chunk is one probe's code for one file.
type chunk struct{ probe, code string }

// span is where a probe's code landed, in bytes of the file as parsed.
type span struct {
	probe, file string
	start, end  int
}

// rootPackage is the root package type-checked from source, with the
// module's internal packages it imports.
type rootPackage struct {
	fset  *token.FileSet
	path  string
	files []*ast.File // the root's
	info  *types.Info // the root's and its internal packages'
	decls map[*types.Func]*ast.FuncDecl
	vars  map[*types.Var]ast.Expr // package-level variables' initializers
	spans []span
}

// exportData returns the export data files of the root's dependencies and
// of the probes' imports, by import path, from one run of go list: the
// standard library is read in its compiled form, not type-checked from
// source on every run.
var exportData = sync.OnceValues(func() (map[string]string, error) {
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "."}
	for _, path := range probeImports {
		if !strings.HasPrefix(path, walkedPackages) {
			args = append(args, path)
		}
	}
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v: %s", err, stderr.String())
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), "\t"); ok && file != "" {
			m[path] = file
		}
	}
	return m, sc.Err()
})

// loader imports the standard library from export data and the module's
// internal packages from source, into the root's types.Info.
type loader struct {
	t       *testing.T
	pkg     *rootPackage
	gc      types.Importer
	own     map[string]*types.Package
	overlay map[string][]chunk // by internal package path: code added to its first file
}

func (l *loader) Import(path string) (*types.Package, error) {
	if !strings.HasPrefix(path, walkedPackages) {
		return l.gc.Import(path)
	}
	if p, ok := l.own[path]; ok {
		return p, nil
	}
	dir := filepath.FromSlash(strings.TrimPrefix(path, l.pkg.path+"/"))
	files := l.pkg.parseDir(l.t, dir, map[string][]chunk{"": l.overlay[path]})
	p, err := (&types.Config{Importer: l}).Check(path, l.pkg.fset, files, l.pkg.info)
	if err != nil {
		return nil, err
	}
	l.pkg.index(files)
	l.own[path] = p
	return p, nil
}

// loadRoot type-checks the root package, with the probes ps added to it.
func loadRoot(t *testing.T, ps []probe) *rootPackage {
	t.Helper()
	exports, err := exportData()
	if err != nil {
		t.Fatal(err)
	}
	pkg := &rootPackage{
		fset: token.NewFileSet(), path: "github.com/loopctl-go/reflection",
		info: &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{},
			Defs: map[*ast.Ident]types.Object{},
		},
		decls: map[*types.Func]*ast.FuncDecl{}, vars: map[*types.Var]ast.Expr{},
	}
	l := &loader{t: t, pkg: pkg, own: map[string]*types.Package{}, overlay: map[string][]chunk{}}
	l.gc = importer.ForCompiler(pkg.fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	added := map[string][]chunk{}
	if ps != nil {
		roles, field := probeFiles(t)
		for _, p := range ps {
			for role, code := range p.code {
				c := chunk{p.name, strings.ReplaceAll(code, "{{field}}", field)}
				if role == "internal" {
					l.overlay[walkedPackages+"textcut"] = append(l.overlay[walkedPackages+"textcut"], c)
				} else {
					added[roles[role]] = append(added[roles[role]], c)
				}
			}
		}
	}
	pkg.files = pkg.parseDir(t, ".", added)
	if _, err := (&types.Config{Importer: l}).Check(pkg.path, pkg.fset, pkg.files, pkg.info); err != nil {
		t.Fatal(err)
	}
	pkg.index(pkg.files)
	return pkg
}

// probeFiles finds the files the probes go into by what they declare, so
// that renames cannot lose them, and the name of Recovery's first field.
func probeFiles(t *testing.T) (roles map[string]string, field string) {
	t.Helper()
	want := map[string]string{"machine": "\ntype Recovery struct {", "value": "\nfunc TaskFromContext(",
		"runtime": "\ntype Driver struct {"}
	roles = map[string]string{"new": "probe_unlisted.go"}
	names, _ := filepath.Glob("*.go")
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for role, decl := range want {
			if i := bytes.Index(src, []byte(decl)); i >= 0 {
				roles[role] = name
				if role == "machine" {
					field = strings.Fields(string(src[i+len(decl):]))[0]
				}
			}
		}
	}
	if len(roles) != len(want)+1 || field == "" {
		t.Fatalf("the probes' files: found %v, Recovery's first field %q", roles, field)
	}
	return roles, field
}

// parseDir parses the non-test files of dir, with the chunks of added[name]
// at the end of file name (added[""]: of the first file) and the probes'
// imports after its package clause. A name in added that dir has no file of
// is a new file.
func (p *rootPackage) parseDir(t *testing.T, dir string, added map[string][]chunk) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasSuffix(n, "_test.go") })
	sort.Strings(names)
	for name := range added {
		if name != "" && !slices.Contains(names, filepath.Join(dir, name)) {
			names = append(names, filepath.Join(dir, name))
		}
	}
	var files []*ast.File
	for i, name := range names {
		base := filepath.Base(name)
		chunks := added[base]
		if i == 0 && len(added[""]) > 0 {
			chunks = added[""]
		}
		src, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			src, err = []byte("package reflection\n"), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) > 0 {
			src = p.withProbes(t, src, base, chunks)
		}
		f, err := parser.ParseFile(p.fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files = append(files, f)
	}
	return files
}

// withProbes returns src with the probes' imports after its package clause
// and their code at its end, and records where each chunk landed.
func (p *rootPackage) withProbes(t *testing.T, src []byte, file string, chunks []chunk) []byte {
	t.Helper()
	clause, err := parser.ParseFile(token.NewFileSet(), file, src, parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	at := int(clause.Name.End()) - 1 // a fresh FileSet's file starts at 1
	eol := bytes.IndexByte(src[at:], '\n') + at + 1
	var all strings.Builder
	for _, c := range chunks {
		all.WriteString(c.code)
	}
	var out bytes.Buffer
	out.Write(src[:eol])
	out.WriteString("\n")
	importsAt := out.Len()
	out.WriteString("import (\n")
	aliases := slices.Sorted(func(yield func(string) bool) {
		for a := range probeImports {
			if !yield(a) {
				return
			}
		}
	})
	for _, a := range aliases {
		if strings.Contains(all.String(), a+".") {
			fmt.Fprintf(&out, "\t%s %q\n", a, probeImports[a])
		}
	}
	out.WriteString(")\n")
	p.spans = append(p.spans, span{probeImportsName, file, importsAt, out.Len()})
	newFile := bytes.Equal(src, []byte("package reflection\n"))
	out.Write(src[eol:])
	for _, c := range chunks {
		out.WriteString("\n")
		start := out.Len()
		out.WriteString(c.code)
		end := out.Len()
		if newFile {
			start = 0
		}
		p.spans = append(p.spans, span{c.probe, file, start, end})
		out.WriteString("\n")
	}
	return out.Bytes()
}

// inProbe reports whether pos lies in the code of the probe named probe
// ("" for any probe).
func (p *rootPackage) inProbe(pos token.Position, probe string) bool {
	for _, s := range p.spans {
		if (probe == "" || s.probe == probe) && s.file == filepath.Base(pos.Filename) && pos.Offset >= s.start && pos.Offset < s.end {
			return true
		}
	}
	return false
}

// index records the function declarations and package-level variables of
// files.
func (p *rootPackage) index(files []*ast.File) {
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if fn, ok := p.info.Defs[d.Name].(*types.Func); ok {
					p.decls[fn] = d
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok || d.Tok != token.VAR {
						continue
					}
					for i, n := range vs.Names {
						v, ok := p.info.Defs[n].(*types.Var)
						switch {
						case !ok:
						case len(vs.Values) == len(vs.Names):
							p.vars[v] = vs.Values[i]
						case len(vs.Values) == 1:
							p.vars[v] = vs.Values[0]
						}
					}
				}
			}
		}
	}
}

// layerAt returns the layer of the root file that holds pos; valueLayer for
// a position in another package of the module.
func (p *rootPackage) layerAt(pos token.Pos) (layer, string) {
	name := p.fset.Position(pos).Filename
	if filepath.Dir(name) != "." {
		return valueLayer, filepath.ToSlash(name)
	}
	return layerOf(filepath.Base(name)), filepath.Base(name)
}

// work is a function or variable initializer the walk must check, and how
// the machine reaches it.
type work struct {
	node ast.Node
	name string // what it is, for a message
	from string // the machine's function it is reached from; "" for machine code
	via  []string
}

// violations returns every place where the package breaks a rule, and which
// functions of allowed the walk met (and did not enter).
func (p *rootPackage) violations(allowed map[string]string) ([]violation, map[string]bool) {
	var out []violation
	allowedSeen := map[string]bool{}
	report := func(pos token.Pos, what string) {
		out = append(out, violation{p.fset.Position(pos), what})
	}
	var queue []work
	for _, f := range p.files {
		l, name := p.layerAt(f.Pos())
		if l == noLayer {
			report(f.Package, name+" belongs to no layer: give it a name the layer table of purity_test.go knows")
			continue
		}
		for _, d := range f.Decls {
			fn, isFunc := d.(*ast.FuncDecl)
			if isFunc && fn.Recv != nil && isRecoveryExpr(fn.Recv.List[0].Type) && l != machineLayer {
				report(fn.Pos(), "method (*Recovery)."+fn.Name.Name+" is outside the machine's files")
			}
			switch {
			case l == machineLayer && isFunc:
				queue = append(queue, work{node: fn, name: funcName(fn)})
			case l == machineLayer:
				queue = append(queue, work{node: d, name: "declarations of " + name})
			case l == runtimeLayer || l == sharedLayer:
				p.checkFieldReads(d, report)
			}
		}
		if l == machineLayer {
			for _, imp := range f.Imports {
				if path := strings.Trim(imp.Path.Value, `"`); bannedPackage(path) {
					report(imp.Pos(), "imports "+path+": I/O, shared memory, the Go runtime or randomness")
				}
			}
		}
	}
	seen := map[ast.Node]bool{}
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		if seen[w.node] {
			continue
		}
		seen[w.node] = true
		where := ""
		if w.from != "" {
			where = " (in " + w.name + ", reached from " + w.from
			if len(w.via) > 0 {
				where += " via " + strings.Join(w.via, ", ")
			}
			where += ")"
		}
		next := func(node ast.Node, name string) {
			from, via := w.from, slices.Clone(w.via)
			if from == "" {
				from = w.name
			} else {
				via = append(via, w.name)
			}
			queue = append(queue, work{node: node, name: name, from: from, via: via})
		}
		ast.Inspect(w.node, func(n ast.Node) bool {
			if what := p.banned(n); what != "" {
				report(n.Pos(), what+where)
			}
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.info.Uses[id]
			if obj == nil || obj.Pkg() == nil || !p.own(obj.Pkg().Path()) {
				return true
			}
			l, file := p.layerAt(obj.Pos())
			if l == runtimeLayer || l == sharedLayer {
				whose := map[layer]string{runtimeLayer: "the runtime's", sharedLayer: "the shared state's"}[l]
				report(id.Pos(), id.Name+" is declared in "+whose+" "+file+where)
				return true
			}
			if l == machineLayer {
				return true // checked as machine code
			}
			switch obj := obj.(type) {
			case *types.Func:
				obj = obj.Origin()
				name := qualifiedName(obj)
				if _, ok := allowed[name]; ok {
					allowedSeen[name] = true
					return true
				}
				if d := p.decls[obj]; d != nil {
					next(d, funcName(d))
				}
			case *types.Var:
				if e := p.vars[obj]; e != nil {
					next(e, obj.Name())
				}
			}
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, allowedSeen
}

// own reports whether path is the root package or one the check reads from
// source.
func (p *rootPackage) own(path string) bool {
	return path == p.path || strings.HasPrefix(path, walkedPackages)
}

// banned returns what is wrong with n, or "" when nothing is.
func (p *rootPackage) banned(n ast.Node) string {
	switch n := n.(type) {
	case *ast.GoStmt:
		return "a go statement"
	case *ast.SelectStmt:
		return "a select"
	case *ast.SendStmt:
		return "a channel send"
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			return "a channel receive"
		}
	case *ast.ChanType:
		return "a channel type"
	case *ast.RangeStmt:
		switch p.info.Types[n.X].Type.Underlying().(type) {
		case *types.Map:
			return "a range over a map (its order is random)"
		case *types.Chan:
			return "a range over a channel"
		}
	case *ast.Ident:
		switch obj := p.info.Uses[n].(type) {
		case *types.Builtin:
			switch obj.Name() {
			case "print", "println":
				return "the builtin " + obj.Name() + ": it writes to standard error"
			case "close":
				return "the builtin close: a channel operation"
			case "Sizeof", "Alignof", "Offsetof", "Add", "Slice", "SliceData", "String", "StringData":
				if obj.Pkg() == nil || obj.Pkg().Path() == "unsafe" {
					return "unsafe." + obj.Name() + ": unsafe reads memory behind the type system"
				}
			}
		case nil:
		default:
			if obj.Pkg() == nil {
				return ""
			}
			path := obj.Pkg().Path()
			if bannedPackage(path) {
				return path + "." + memberName(obj) + ": " + path + " does I/O, shares memory, reads the Go runtime or draws randomness"
			}
			if names := bannedNames[path]; slices.Contains(names.members, memberName(obj)) {
				return path + "." + memberName(obj) + ": it " + names.why
			}
		}
	}
	return ""
}

// checkFieldReads reports where a runtime declaration reads a field of
// Recovery rather than calling one of its methods.
func (p *rootPackage) checkFieldReads(d ast.Decl, report func(token.Pos, string)) {
	ast.Inspect(d, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if field, ok := p.info.Uses[sel.Sel].(*types.Var); ok && field.IsField() && isRecovery(p.info.Types[sel.X].Type) {
			report(sel.Pos(), "the runtime reads the machine's field Recovery."+sel.Sel.Name+": use a method")
		}
		return true
	})
}

// bannedPackage reports whether path, or a path above it, is banned.
func bannedPackage(path string) bool {
	for _, b := range bannedPackages {
		if path == b || strings.HasPrefix(path, b+"/") {
			return true
		}
	}
	return false
}

// memberName is obj's name, with its receiver's type name for a method
// (Context.Done).
func memberName(obj types.Object) string {
	fn, ok := obj.(*types.Func)
	if !ok {
		return obj.Name()
	}
	recv := fn.Signature().Recv()
	if recv == nil {
		return fn.Name()
	}
	t := recv.Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if named, ok := t.(*types.Named); ok {
		return named.Obj().Name() + "." + fn.Name()
	}
	return fn.Name()
}

// qualifiedName names fn for walkAllowed: package path, then name, with
// its receiver's type name for a method.
func qualifiedName(fn *types.Func) string {
	return fn.Pkg().Path() + "." + memberName(fn)
}

// funcName names a declaration for a message: f, T.m or (*T).m.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil {
		return fn.Name.Name
	}
	recv := types.ExprString(fn.Recv.List[0].Type)
	if strings.HasPrefix(recv, "*") {
		return "(" + recv + ")." + fn.Name.Name
	}
	return recv + "." + fn.Name.Name
}

// isRecoveryExpr reports whether a receiver's type is Recovery or *Recovery.
func isRecoveryExpr(e ast.Expr) bool {
	s := types.ExprString(e)
	return s == "*Recovery" || s == "Recovery"
}

// isRecovery reports whether t is Recovery or a pointer to it.
func isRecovery(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Recovery"
}
