package services_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// errorName matches the names the services give errors: err, lastErr,
// LastError, resealErr...
var errorName = regexp.MustCompile(`(?i)(^err|err$|error$)`)

// TestJobNotificationsQuoteNoError checks that no job notification
// (jobs.Run's Notify and Notifyf) is made from an error: an error's text is a
// library's ("can't scan into dest[0]: ...", addresses, SQL) and the Jobs
// page shows notifications to operators. NotifyErr takes the error for the
// log and a sentence for the page; jobs.Failed likewise for a run's error.
func TestJobNotificationsQuoteNoError(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Notify" && sel.Sel.Name != "Notifyf") || len(call.Args) < 2 {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "signal" {
				return true // os/signal.Notify
			}
			checked++
			for _, arg := range call.Args[1:] {
				if name := errorArg(arg); name != "" {
					t.Errorf("%s: a job notification quotes the error %s: use run.NotifyErr (a sentence for operators, the error for the log)",
						fset.Position(call.Pos()), name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no job notification was checked")
	}
}

// errorArg returns the name of an argument that looks like an error (err,
// rep.LastError, err.Error()), or "".
func errorArg(arg ast.Expr) string {
	switch a := arg.(type) {
	case *ast.Ident:
		if errorName.MatchString(a.Name) {
			return a.Name
		}
	case *ast.SelectorExpr:
		if errorName.MatchString(a.Sel.Name) {
			return a.Sel.Name
		}
	case *ast.CallExpr:
		if sel, ok := a.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" {
			return errorArg(sel.X)
		}
		for _, inner := range a.Args {
			if name := errorArg(inner); name != "" {
				return name
			}
		}
	}
	return ""
}
