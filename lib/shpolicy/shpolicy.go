// Package shpolicy judges a bash script before it runs, on mvdan.cc/sh's
// syntax tree: every command of it against allowed prefixes, and the
// shell's own ways to write, read or connect whatever the command. It is
// pure: what a file may be is asked of the caller (Options.File).
package shpolicy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Options say what a script may do. Check judges a script: every
// command of it, wherever it stands (pipelines, lists, subshells, blocks,
// loops, command and process substitutions, a literal eval), must match
// an allowed prefix, and the shell's own ways to write, read or connect
// are judged whatever the command: redirections (>, >>, >|, &>, &>>, <>,
// >&FILE, <, $(<FILE)), /dev/tcp and /dev/udp, exec with redirections,
// assignments to environment-like names (PATH=…, BASH_ENV, export),
// function definitions, and expansions that run code hidden in a
// variable's value (arithmetic on variables, ${!x}, ${x@P}, [[ -v ]]).
// What it cannot read for sure it refuses.
type Options struct {
	// Prefixes are the commands allowed with any arguments after them
	// (git status allows git status --short); Exact the ones allowed only
	// as written.
	Prefixes, Exact []string
	// ReadOnly refuses every redirection that writes a file.
	ReadOnly bool
	// File is the refusal of a redirection's file (resolved to an absolute
	// path; write: it is written), or "". Nil allows every file.
	File func(abs string, write bool) string
	// Resolve makes a redirection's literal path absolute, as bash will
	// (against the call's working directory; ~ is the home).
	Resolve func(p string) string
}

// Check is the reason script is refused, or "": a script that does not
// parse is refused.
func Check(script string, o Options) string {
	b := &bashCheck{Options: o}
	if b.File == nil {
		b.File = func(string, bool) string { return "" }
	}
	return b.script(script)
}

type bashCheck struct {
	Options
	cd    bool // the script changes directory: relative paths are unknown
	depth int  // eval nesting
}

// maxEvalDepth bounds eval within eval.
const maxEvalDepth = 4

// script parses src and returns the reason it is refused, or "".
func (b *bashCheck) script(src string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return fmt.Sprintf("Command refused: it does not parse (%v).", err)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			switch lit, _ := literal(c.Args[0]); lit {
			case "cd", "pushd", "popd":
				b.cd = true
			}
		}
		return true
	})
	bad := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if bad == "" {
			bad = b.node(n)
		}
		return bad == ""
	})
	return bad
}

// node judges one node of the tree (its children are walked after it).
func (b *bashCheck) node(n syntax.Node) string {
	switch n := n.(type) {
	case *syntax.Stmt:
		for _, r := range n.Redirs {
			if why := b.redirect(r); why != "" {
				return why
			}
		}
	case *syntax.CallExpr:
		return b.call(n)
	case *syntax.DeclClause:
		return b.decl(n)
	case *syntax.FuncDecl:
		return "Command refused by policy: it defines a function, which could stand in for an allowed command."
	case *syntax.CoprocClause:
		return "Command refused by policy: coproc is not allowed."
	case *syntax.ForClause:
		if w, ok := n.Loop.(*syntax.WordIter); ok {
			return assignName(w.Name.Value)
		}
		return arithm(n.Loop, "a C-style for loop")
	case *syntax.ArithmExp:
		return arithm(n.X, "an arithmetic expansion")
	case *syntax.ArithmCmd:
		return arithm(n.X, "an arithmetic command")
	case *syntax.LetClause:
		return "Command refused by policy: let is not allowed (it evaluates variables' values as code)."
	case *syntax.ParamExp:
		return paramExp(n)
	case *syntax.TestClause:
		return testClause(n.X)
	case *syntax.ArrayElem:
		if n.Index != nil {
			return arithm(n.Index, "an array index")
		}
	}
	return ""
}

// call judges a simple command: its assignments and its words against
// the prefixes (exec without a command only redirects; a literal eval
// is judged as the script it is).
func (b *bashCheck) call(c *syntax.CallExpr) string {
	var words []string
	for _, w := range c.Args {
		lit, ok := literal(w)
		if !ok {
			// A word built from expansions can be anything.
			lit = "\x00" + printed(w)
		}
		words = append(words, lit)
	}
	var assigns []string
	for _, a := range c.Assigns {
		assigns = append(assigns, printed(a))
	}
	args := c.Args
	if len(words) > 0 && words[0] == "exec" {
		words, args = words[1:], args[1:]
	}
	if len(words) > 0 && words[0] == "eval" {
		return b.eval(args[1:])
	}
	if len(words) > 0 && b.allowed(strings.Join(append(assigns, words...), " ")) {
		return "" // the prefix names the assignments too (CGO_ENABLED=0 go build)
	}
	for _, a := range c.Assigns {
		if why := assignment(a); why != "" {
			return why
		}
	}
	if len(words) == 0 {
		return ""
	}
	if cmd := strings.Join(words, " "); !b.allowed(cmd) {
		return fmt.Sprintf("Command refused by policy: %q is not an allowed command (allowed: %s).",
			strings.ReplaceAll(cmd, "\x00", ""), b.allowedList())
	}
	return ""
}

func (b *bashCheck) allowed(cmd string) bool {
	for _, p := range b.Prefixes {
		if cmd == p || strings.HasPrefix(cmd, p+" ") {
			return true
		}
	}
	return slices.Contains(b.Exact, cmd)
}

// allowedList names the allowed commands, for messages.
func (b *bashCheck) allowedList() string {
	return strings.Join(append(slices.Clone(b.Prefixes), b.Exact...), ", ")
}

// eval judges a literal eval's arguments as the script they make.
func (b *bashCheck) eval(args []*syntax.Word) string {
	var parts []string
	for _, w := range args {
		lit, ok := literal(w)
		if !ok {
			return "Command refused by policy: eval of an expansion cannot be checked."
		}
		parts = append(parts, lit)
	}
	if b.depth >= maxEvalDepth {
		return "Command refused by policy: eval nested too deeply."
	}
	inner := *b
	inner.depth++
	return inner.script(strings.Join(parts, " "))
}

// decl judges export, declare, local, readonly, typeset: a command to
// allow, whose assignments may not set environment-like names.
func (b *bashCheck) decl(d *syntax.DeclClause) string {
	for _, a := range d.Args {
		if a.Name != nil {
			if why := assignName(a.Name.Value); why != "" {
				return why
			}
		}
		if a.Index != nil {
			if why := arithm(a.Index, "an array index"); why != "" {
				return why
			}
		}
	}
	if cmd := printed(d); !b.allowed(cmd) {
		return fmt.Sprintf("Command refused by policy: %q is not an allowed command (allowed: %s).", cmd, b.allowedList())
	}
	return ""
}

// assignment judges NAME=value before a command or alone.
func assignment(a *syntax.Assign) string {
	if a.Name == nil {
		return ""
	}
	if why := assignName(a.Name.Value); why != "" {
		return why
	}
	if a.Index != nil {
		return arithm(a.Index, "an array index")
	}
	return ""
}

// envLike are lower-case names that programs read from the environment.
var envLike = []string{"http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"}

// assignName refuses a name that looks like an environment variable (no
// lower-case letter: PATH, BASH_ENV, LD_PRELOAD, GIT_DIR, IFS, …; a
// proxy; npm_config_*): setting one changes what later commands do.
func assignName(name string) string {
	lower := strings.ContainsFunc(name, func(r rune) bool { return r >= 'a' && r <= 'z' })
	for _, e := range envLike {
		if strings.EqualFold(name, e) {
			lower = false
		}
	}
	if !lower || strings.HasPrefix(strings.ToLower(name), "npm_config_") || strings.HasPrefix(strings.ToLower(name), "bash") {
		return fmt.Sprintf("Command refused by policy: it sets %s, which changes how commands run.", name)
	}
	return ""
}

// redirect judges one redirection: a write to a file (refused in
// read-only mode, else only inside the root), a read of a file (only
// inside the root), /dev/tcp and /dev/udp (always refused); fd dups,
// here-documents and here-strings are fine.
func (b *bashCheck) redirect(r *syntax.Redirect) string {
	file, write := redirectsFile(r)
	if !file {
		return ""
	}
	lit, ok := literal(r.Word)
	if !ok || lit == "" || strings.ContainsAny(lit, "*?[") || strings.HasPrefix(lit, "~") && lit != "~" && !strings.HasPrefix(lit, "~/") {
		return fmt.Sprintf("Command refused by policy: the redirection %s names its file with an expansion or pattern, which cannot be checked.", redirText(r))
	}
	if b.cd && !filepath.IsAbs(lit) && !strings.HasPrefix(lit, "~") {
		return fmt.Sprintf("Command refused by policy: the redirection %s names a relative path in a script that changes directory.", redirText(r))
	}
	abs := b.Resolve(lit)
	switch {
	case strings.HasPrefix(abs+"/", "/dev/tcp/") || strings.HasPrefix(abs+"/", "/dev/udp/"):
		return fmt.Sprintf("Command refused by policy: %s opens a network connection.", redirText(r))
	case abs == "/dev/null" || abs == "/dev/stdout" || abs == "/dev/stderr" || abs == "/dev/stdin" || abs == "/dev/zero" && !write:
		return ""
	case write && b.ReadOnly:
		return fmt.Sprintf("Command refused by policy: %s writes %s, and this session is read-only.", redirText(r), lit)
	}
	if why := b.File(abs, write); why != "" {
		return fmt.Sprintf("Command refused by policy: %s: %s", redirText(r), why)
	}
	return ""
}

// redirectsFile says whether r names a file (not a here-document, an fd
// dup or a process substitution), and whether it writes it.
func redirectsFile(r *syntax.Redirect) (file, write bool) {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return false, false
	case syntax.DplIn, syntax.DplOut:
		if lit, ok := literal(r.Word); ok && (lit == "-" || isNumber(strings.TrimSuffix(lit, "-"))) {
			return false, false // 2>&1, >&-, 3>&1-
		}
		write = r.Op == syntax.DplOut // >&FILE is &>FILE
	case syntax.RdrIn:
	default:
		write = true
	}
	if len(r.Word.Parts) == 1 {
		if _, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
			return false, false // <(cmd), >(cmd): the commands are judged
		}
	}
	return true, write
}

// paramExp refuses the expansions that run code in a variable's value:
// ${!x} (an indirect name may hold a[$(cmd)]), ${x@P} and the other @
// operators, and subscripts or offsets that are not numbers.
func paramExp(p *syntax.ParamExp) string {
	all := false // ${a[@]}, ${a[*]}
	if w, ok := p.Index.(*syntax.Word); ok {
		lit, _ := literal(w)
		all = lit == "@" || lit == "*"
	}
	if p.Excl && p.Names == 0 && !all {
		return "Command refused by policy: indirect expansion ${!…} is not allowed."
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps {
		return "Command refused by policy: the ${…@…} operators are not allowed."
	}
	if p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) && p.Param != nil {
		if why := assignName(p.Param.Value); why != "" {
			return why
		}
	}
	if p.Index != nil && !all {
		return arithm(p.Index, "an array subscript")
	}
	if p.Slice != nil {
		if why := arithm(p.Slice.Offset, "a substring offset"); why != "" {
			return why
		}
		return arithm(p.Slice.Length, "a substring length")
	}
	return ""
}

// testClause refuses [[ ]] tests that evaluate a variable's value as
// arithmetic (-eq …, -v with a subscript).
func testClause(x syntax.TestExpr) string {
	bad := ""
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				if bad == "" {
					bad = arithm(n.X, "an arithmetic test")
				}
				if bad == "" {
					bad = arithm(n.Y, "an arithmetic test")
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet {
				if w, ok := n.X.(*syntax.Word); !ok || !isName(w) {
					bad = "Command refused by policy: [[ -v ]] takes a plain variable name here."
				}
			}
		}
		return bad == ""
	})
	return bad
}

// arithm refuses an arithmetic expression that is not made of numbers:
// bash evaluates a variable's value there as an expression, and
// a[$(cmd)] in it runs cmd.
func arithm(x syntax.Node, what string) string {
	if x == nil {
		return ""
	}
	bad := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if lit, ok := literal(w); !ok || !isNumber(lit) {
				bad = true
			}
			return false
		}
		return !bad
	})
	if bad {
		return fmt.Sprintf("Command refused by policy: %s uses a variable or expansion (%s); only numbers are allowed there.", what, printed(x))
	}
	return ""
}

// literal is a word's value when it holds no expansion, escape or
// special quoting: plain text, '…' and "…" of plain text.
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var sb strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				return "", false
			}
			sb.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.Contains(l.Value, `\`) {
					return "", false
				}
				sb.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return sb.String(), true
}

func isNumber(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '#' || r == '_' || r == '@') {
			return false
		}
	}
	return true
}

func isName(w *syntax.Word) bool {
	lit, ok := literal(w)
	if !ok || lit == "" {
		return false
	}
	for i, r := range lit {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// redirText is a redirection as written (the printer prints it only
// inside a statement).
func redirText(r *syntax.Redirect) string {
	n := ""
	if r.N != nil {
		n = r.N.Value
	}
	return n + r.Op.String() + " " + printed(r.Word)
}

// printed is a node as bash source, for messages.
func printed(n syntax.Node) string {
	var sb strings.Builder
	syntax.NewPrinter().Print(&sb, n)
	return sb.String()
}

// Commands are the simple commands of script as written (words joined by
// a space, assignments before them left out, a literal eval's script
// included; a word built from expansions is shown as written): what a
// deny list is matched against.
func Commands(script string) ([]string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, err
	}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		var words []string
		for _, w := range c.Args {
			lit, ok := literal(w)
			if !ok {
				lit = printed(w)
			}
			words = append(words, lit)
		}
		if words[0] == "exec" {
			words = words[1:]
		}
		if len(words) > 1 && words[0] == "eval" {
			if inner, err := Commands(strings.Join(words[1:], " ")); err == nil {
				out = append(out, inner...)
			}
		}
		if len(words) > 0 {
			out = append(out, strings.Join(words, " "))
		}
		return true
	})
	return out, nil
}
