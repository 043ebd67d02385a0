package rich

import (
	"bytes"
	"html"
	"strings"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// htmlFormatter writes chroma's tokens as spans with classes (the style
// sheet is CSS).
var htmlFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.PreventSurroundingPre(true), chromahtml.ClassPrefix("hl-"), chromahtml.WithCSSComments(false))

// HighlightHTML is code as escaped HTML with highlighting spans; unknown
// languages are only escaped.
func HighlightHTML(code, lang string) string {
	l := lexer(lang)
	if l == nil {
		return html.EscapeString(code)
	}
	it, err := l.Tokenise(nil, code)
	if err != nil {
		return html.EscapeString(code)
	}
	var b bytes.Buffer
	if err := htmlFormatter.Format(&b, styles.Get("github"), it); err != nil {
		return html.EscapeString(code)
	}
	return b.String()
}

// CSS is the style sheet of HighlightHTML's classes: GitHub's colours,
// and GitHub Dark's when the browser prefers dark.
func CSS() string {
	var light, dark bytes.Buffer
	htmlFormatter.WriteCSS(&light, styles.Get("github"))
	htmlFormatter.WriteCSS(&dark, styles.Get("github-dark"))
	return dropBackground(light.String()) + "\n@media (prefers-color-scheme:dark){" + dropBackground(dark.String()) + "}"
}

// dropBackground leaves out the rules for the code's own background and
// the wrapper element, so code sits on the page's colours, and drops the
// wrapper from the token rules' selectors (HighlightHTML writes no
// wrapper: the code goes into the page's own pre elements).
func dropBackground(css string) string {
	var out []string
	for _, l := range strings.Split(css, "\n") {
		if strings.Contains(l, ".hl-bg ") || strings.Contains(l, ".hl-chroma {") {
			continue
		}
		out = append(out, strings.ReplaceAll(l, ".hl-chroma ", ""))
	}
	return strings.Join(out, "\n")
}

// htmlMD renders markdown to HTML: fenced and indented code highlighted,
// raw HTML shown as text (a transcript quotes HTML; it must not run).
var htmlMD = newMarkdown(goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(codeRenderer{}, 100))))

// MarkdownHTML renders markdown as an HTML fragment.
func MarkdownHTML(src string) string {
	var b bytes.Buffer
	if err := htmlMD.Convert([]byte(src), &b); err != nil {
		return "<pre>" + html.EscapeString(src) + "</pre>"
	}
	return b.String()
}

type codeRenderer struct{}

func (codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderCode)
	reg.Register(ast.KindCodeBlock, renderCode)
	reg.Register(ast.KindHTMLBlock, renderRawBlock)
	reg.Register(ast.KindRawHTML, renderRawInline)
}

func lines(n ast.Node, src []byte) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

func renderCode(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	lang := ""
	if f, ok := n.(*ast.FencedCodeBlock); ok {
		lang = string(f.Language(src))
	}
	code := strings.TrimSuffix(lines(n, src), "\n")
	w.WriteString("<pre><code")
	if lang != "" {
		w.WriteString(` class="language-` + html.EscapeString(lang) + `"`)
	}
	w.WriteString(">" + HighlightHTML(code, lang) + "</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

func renderRawBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		s := lines(n, src)
		if b, ok := n.(*ast.HTMLBlock); ok && b.HasClosure() {
			s += string(b.ClosureLine.Value(src))
		}
		w.WriteString("<p class=\"raw\">" + html.EscapeString(s) + "</p>\n")
	}
	return ast.WalkSkipChildren, nil
}

func renderRawInline(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		r := n.(*ast.RawHTML)
		for i := 0; i < r.Segments.Len(); i++ {
			seg := r.Segments.At(i)
			w.WriteString(html.EscapeString(string(seg.Value(src))))
		}
	}
	return ast.WalkSkipChildren, nil
}
