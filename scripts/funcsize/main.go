// Command funcsize lists the functions under the given directories that are
// longer than -lines lines or whose cyclomatic complexity is over -over
// (1 + each if, for, range, non-default case and select clause, && and ||:
// the count gocyclo makes). Test files are left out. It exits 1 when it
// lists any: `make lint` keeps cmd/ a set of thin shells with it.
//
//	go run ./scripts/funcsize -lines 80 -over 30 cmd
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type finding struct {
	pos          token.Position
	name         string
	lines, cyclo int
}

func main() {
	maxLines := flag.Int("lines", 80, "longest function allowed, in lines")
	maxCyclo := flag.Int("over", 30, "highest cyclomatic complexity allowed")
	flag.Parse()
	fset := token.NewFileSet()
	var found []finding
	for _, root := range flag.Args() {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir // test programs, not shells
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			found = append(found, measure(fset, f, *maxLines, *maxCyclo)...)
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "funcsize:", err)
			os.Exit(2)
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].cyclo*1000+found[i].lines > found[j].cyclo*1000+found[j].lines })
	for _, f := range found {
		fmt.Printf("%s:%d: %s: %d lines, complexity %d (limits %d, %d)\n", f.pos.Filename, f.pos.Line, f.name, f.lines, f.cyclo, *maxLines, *maxCyclo)
	}
	if len(found) > 0 {
		os.Exit(1)
	}
}

func measure(fset *token.FileSet, f *ast.File, maxLines, maxCyclo int) []finding {
	var out []finding
	check := func(name string, body *ast.BlockStmt, at token.Pos) {
		if body == nil {
			return
		}
		lines := fset.Position(body.Rbrace).Line - fset.Position(at).Line + 1
		if c := cyclo(body); lines > maxLines || c > maxCyclo {
			out = append(out, finding{fset.Position(at), name, lines, c})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncDecl:
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) > 0 {
				name = recvName(fn.Recv.List[0].Type) + "." + name
			}
			check(name, fn.Body, fn.Pos())
		case *ast.FuncLit:
			// A closure is measured with the function around it (gocyclo's
			// rule), except that a long one is still a long function.
			if l := fset.Position(fn.Body.Rbrace).Line - fset.Position(fn.Pos()).Line + 1; l > maxLines {
				out = append(out, finding{fset.Position(fn.Pos()), "func literal", l, cyclo(fn.Body)})
			}
		}
		return true
	})
	return out
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

func cyclo(body *ast.BlockStmt) int {
	c := 1
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}
