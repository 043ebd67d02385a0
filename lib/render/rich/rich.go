// Package rich is the markdown and code styling of lib/render and
// lib/export, on yuin/goldmark (CommonMark with GitHub's tables, strike-
// through and task lists) and alecthomas/chroma (highlighting).
//
// It is a package of its own so that only the programs that show markdown
// to people link those libraries (chroma registers a few hundred lexers
// when a program starts): the `agent` front-end and `agent-render`, never
// the seven pipeline commands. It is pure like the rest of lib/.
package rich

import (
	"bytes"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// newMarkdown is the one goldmark configuration both outputs share.
func newMarkdown(opts ...goldmark.Option) goldmark.Markdown {
	return goldmark.New(append([]goldmark.Option{
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	}, opts...)...)
}

var lexerCache sync.Map // lang → chroma.Lexer (nil: none)

// lexer finds the lexer for a fence's language or a file name ("" and
// unknown: nil).
func lexer(lang string) chroma.Lexer {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if lang == "" {
		return nil
	}
	if l, ok := lexerCache.Load(lang); ok {
		lx, _ := l.(chroma.Lexer)
		return lx
	}
	l := lexers.Get(lang)
	if l == nil && strings.Contains(lang, ".") {
		l = lexers.Match(lang)
	}
	if l != nil {
		l = chroma.Coalesce(l)
	}
	lexerCache.Store(lang, l)
	return l
}

// LangOf is the highlighting language of a file path ("" when none is
// known), for tool output that shows a file.
func LangOf(path string) string {
	if l := lexers.Match(path); l != nil {
		return strings.ToLower(l.Config().Name)
	}
	return ""
}

// termStyle is the colour scheme of code in the terminal: mid-tone
// colours for the token kinds that matter and none for plain text and
// punctuation, so it reads on dark and light terminals alike.
var termStyle = chroma.MustNewStyle("agentutils", chroma.StyleEntries{
	chroma.Comment:             "italic #808080",
	chroma.CommentPreproc:      "#af5f00",
	chroma.Keyword:             "#5f87d7",
	chroma.KeywordType:         "#00af87",
	chroma.KeywordConstant:     "#d75f00",
	chroma.NameFunction:        "#d78700",
	chroma.NameBuiltin:         "#00afaf",
	chroma.NameClass:           "#00af87",
	chroma.NameTag:             "#d7005f",
	chroma.NameAttribute:       "#af8700",
	chroma.NameDecorator:       "#af5fd7",
	chroma.LiteralString:       "#5faf00",
	chroma.LiteralStringEscape: "#d75f00",
	chroma.LiteralNumber:       "#d75f00",
	chroma.GenericInserted:     "#5faf00",
	chroma.GenericDeleted:      "#d70000",
	chroma.GenericHeading:      "bold",
	chroma.GenericSubheading:   "bold",
})

// highlightTerm colours code for a 256-colour terminal; unknown languages
// come back unchanged.
func highlightTerm(code, lang string) string {
	l := lexer(lang)
	if l == nil {
		return code
	}
	it, err := l.Tokenise(nil, code)
	if err != nil {
		return code
	}
	var b bytes.Buffer
	if err := formatters.TTY256.Format(&b, termStyle, it); err != nil {
		return code
	}
	return strings.TrimSuffix(b.String(), "\n")
}
