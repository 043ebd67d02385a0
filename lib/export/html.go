package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"
	"time"

	"github.com/agentutils/agentutils/lib/render/show"
	"github.com/agentutils/agentutils/lib/session"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// HTMLOptions plug markdown and highlighting into the page. All are
// optional: without them markdown is shown as written and code plain
// (lib/render/rich provides them, on goldmark and chroma).
type HTMLOptions struct {
	Markdown  func(src string) string        // markdown → an HTML fragment
	Highlight func(code, lang string) string // code → HTML (escaped, with spans)
	LangOf    func(path string) string       // a file's highlighting language
	CSS       string                         // extra style sheet (the highlighting classes)
	FoldLines int                            // tool output shown before "show all" (0: 20)
}

// HTML is the page without markdown rendering or highlighting.
func HTML(s Session) ([]byte, error) { return HTMLWith(s, HTMLOptions{}) }

// HTMLWith is one self-contained page (inline style and script, no
// external resources, images as data URLs): a header with the date,
// models, message counts, tokens and cost; every entry of the file as a
// section, the active path shown and the others one click away; a sidebar
// with a search box and the session tree as it branches (a chain stays at
// one level, each branch point indents), labels and the active path
// marked; tool calls with their results folded after FoldLines lines,
// edits as diffs; buttons (and keys t, o) that hide thinking and tools.
func HTMLWith(s Session, o HTMLOptions) ([]byte, error) {
	ents, recs, h, err := s.entries()
	if err != nil {
		return nil, err
	}
	if o.FoldLines <= 0 {
		o.FoldLines = 20
	}
	p := &page{o: o, ents: ents, recs: recs, labels: session.Labels(recs), subs: s.Subagents}
	p.index(s.LeafID)
	title := h.Title
	if title == "" {
		title = "Session " + h.ID
	}
	b := &p.b
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s\n%s</style></head>\n<body>\n", esc(title), css, o.CSS)
	b.WriteString("<aside id=\"side\"><input id=\"q\" type=\"search\" placeholder=\"Search…\" autocomplete=\"off\">\n")
	fmt.Fprintf(b, "<div class=\"tree-head\">Tree <span class=\"dim\">%d entries</span></div>\n<div id=\"tree\">", len(p.shown))
	p.tree()
	b.WriteString("</div></aside>\n<main>\n")
	p.header(title, h)
	for _, e := range p.ents {
		if p.shown[e.ID] {
			p.section(e)
		}
	}
	b.WriteString("</main>\n<script>" + script + "</script>\n</body></html>\n")
	return b.Bytes(), nil
}

var esc = html.EscapeString

type page struct {
	o      HTMLOptions
	b      bytes.Buffer
	ents   []*entry
	recs   []session.Record // the entries' records
	labels map[string]string

	shown   map[string]bool   // entries with a section and a tree item
	parent  map[string]string // nearest shown ancestor
	onPath  map[string]bool
	leaf    string             // the shown entry that ends the active path
	results map[string]result  // tool results by toolCallId
	merged  map[string]bool    // toolResult entries drawn inside their call
	subs    map[string]Session // sub-agents' sessions by file
}

type result struct {
	id  string
	msg session.Msg
}

// shownType reports whether an entry is drawn (labels, model and
// thinking-level changes and the like are not: they fold into the tree).
func shownType(r session.Record) bool {
	switch r.Type {
	case "message", "compaction", "branch_summary", "custom_message":
		return true
	}
	return false
}

func (p *page) index(leaf string) {
	p.shown, p.parent, p.onPath = map[string]bool{}, map[string]string{}, map[string]bool{}
	p.results, p.merged = map[string]result{}, map[string]bool{}
	byID := map[string]*entry{}
	for _, e := range p.ents {
		byID[e.ID] = e
		if shownType(e.Record) {
			p.shown[e.ID] = true
		}
	}
	for _, r := range p.ents {
		if !p.shown[r.ID] {
			continue
		}
		seen := map[string]bool{r.ID: true}
		for at := r.ParentID; at != "" && !seen[at]; at = parentOf(byID[at]) {
			seen[at] = true
			if p.shown[at] {
				p.parent[r.ID] = at
				break
			}
		}
		if m := r.msg; r.isMsg && m.Role == "toolResult" && m.ToolCallID != "" {
			if _, dup := p.results[m.ToolCallID]; !dup {
				p.results[m.ToolCallID] = result{id: r.ID, msg: m}
			}
		}
	}
	for _, r := range session.Path(p.recs, leaf) {
		p.onPath[r.ID] = true
		if p.shown[r.ID] {
			p.leaf = r.ID
		}
	}
}

// parentOf is an entry's parent id ("" for no entry).
func parentOf(e *entry) string {
	if e == nil {
		return ""
	}
	return e.ParentID
}

// tree draws the entries as a tree: a chain of single children stays at
// one level; where an entry has several children each branch is a nested
// list.
func (p *page) tree() {
	kids := map[string][]string{}
	var roots []string
	for _, r := range p.recs {
		if !p.shown[r.ID] {
			continue
		}
		if par := p.parent[r.ID]; par != "" {
			kids[par] = append(kids[par], r.ID)
		} else {
			roots = append(roots, r.ID)
		}
	}
	byID := map[string]*entry{}
	for _, e := range p.ents {
		byID[e.ID] = e
	}
	var chain func(id string)
	fork := func(ids []string) {
		p.b.WriteString("<li class=\"fork\">")
		for _, c := range ids {
			p.b.WriteString("<div class=\"branch\">")
			chain(c)
			p.b.WriteString("</div>")
		}
		p.b.WriteString("</li>")
	}
	chain = func(id string) {
		p.b.WriteString("<ul>")
		for {
			p.treeItem(byID[id])
			k := kids[id]
			if len(k) != 1 {
				if len(k) > 1 {
					fork(k)
				}
				break
			}
			id = k[0]
		}
		p.b.WriteString("</ul>")
	}
	switch {
	case len(roots) > 1:
		p.b.WriteString("<ul>")
		fork(roots)
		p.b.WriteString("</ul>")
	case len(roots) == 1:
		chain(roots[0])
	}
}

func (p *page) treeItem(r *entry) {
	cls := []string{"node"}
	if p.onPath[r.ID] {
		cls = append(cls, "on-path")
	}
	if r.ID == p.leaf {
		cls = append(cls, "leaf")
	}
	role, text := summary(r)
	cls = append(cls, "r-"+role)
	lbl := ""
	if l := p.labels[r.ID]; l != "" {
		lbl = "<span class=\"label\">" + esc(l) + "</span> "
		cls = append(cls, "labeled")
	}
	fmt.Fprintf(&p.b, "<li class=\"%s\" data-id=\"%s\" data-parent=\"%s\"><a href=\"#e-%s\">%s<b>%s</b> %s</a></li>", strings.Join(cls, " "), esc(r.ID), esc(p.parent[r.ID]), esc(r.ID), lbl, esc(role), esc(clipRunes(text, 120)))
}

// summary is an entry's role and a one-line preview for the tree.
func summary(r *entry) (string, string) {
	switch r.Type {
	case "compaction":
		var tokens int
		if v, ok := r.Get("tokensBefore"); ok {
			json.Unmarshal(v, &tokens)
		}
		return "compaction", fmt.Sprintf("%s tokens summarized", show.Tokens(tokens))
	case "branch_summary":
		return "branch", "summary of the branch left"
	case "custom_message":
		return "note", ""
	}
	m := r.msg
	var parts []string
	for _, b := range blocksOf(m.Content) {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "toolCall":
			parts = append(parts, "["+show.ToolHeader(b.Name, b.Arguments)+"]")
		}
	}
	if m.Role == "toolResult" {
		parts = []string{m.ToolName}
	}
	if m.Role == "bashExecution" {
		parts = []string{"$ " + m.Command}
	}
	return m.Role, strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

type stats struct {
	user, assistant, results, compactions, calls int
	in, out, cacheR, cacheW                      int
	cost                                         float64
	models                                       []string
}

func (p *page) header(title string, h session.Header) {
	var st stats
	for _, e := range p.ents {
		if e.Type == "compaction" {
			st.compactions++
		}
		m := e.msg
		if !e.isMsg {
			continue
		}
		switch m.Role {
		case "user":
			st.user++
		case "toolResult":
			st.results++
		case "assistant":
			st.assistant++
			for _, b := range blocksOf(m.Content) {
				if b.Type == "toolCall" {
					st.calls++
				}
			}
			if m.Model != "" {
				name := m.Model
				if m.Provider != "" {
					name = m.Provider + "/" + m.Model
				}
				if !slices.Contains(st.models, name) {
					st.models = append(st.models, name)
				}
			}
			if u, ok := session.UsageOf(m.Usage); ok {
				st.in += int(u.Input)
				st.out += int(u.Output)
				st.cacheR += int(u.CacheRead)
				st.cacheW += int(u.CacheWrite)
				st.cost += u.Cost
			}
		}
	}
	date := h.Timestamp
	if t, err := time.Parse(time.RFC3339Nano, h.Timestamp); err == nil {
		date = t.UTC().Format("2006-01-02 15:04 UTC")
	}
	b := &p.b
	fmt.Fprintf(b, "<header id=\"top\"><h1>%s</h1>\n<div class=\"controls\"><button id=\"t-thinking\" title=\"t\">Hide thinking</button><button id=\"t-tools\" title=\"o\">Hide tools</button><span class=\"dim\">keys: t thinking · o tools · / search</span></div>\n<dl>", esc(title))
	row := func(k, v string) { fmt.Fprintf(b, "<dt>%s</dt><dd>%s</dd>", k, esc(v)) }
	row("Date", date)
	if h.Cwd != "" {
		row("Directory", h.Cwd)
	}
	models := strings.Join(st.models, ", ")
	if models == "" {
		models = "—"
	}
	row("Models", models)
	msgs := fmt.Sprintf("%d user, %d assistant, %d tool results", st.user, st.assistant, st.results)
	if st.compactions > 0 {
		msgs += fmt.Sprintf(", %d compactions", st.compactions)
	}
	row("Messages", msgs)
	row("Tool calls", fmt.Sprint(st.calls))
	tok := fmt.Sprintf("↑%s ↓%s", show.Tokens(st.in), show.Tokens(st.out))
	if st.cacheR+st.cacheW > 0 {
		tok += fmt.Sprintf(" R%s W%s", show.Tokens(st.cacheR), show.Tokens(st.cacheW))
	}
	row("Tokens", tok)
	row("Cost", fmt.Sprintf("$%.4f", st.cost))
	row("Session", h.ID)
	b.WriteString("</dl></header>\n")
}

// section draws one entry.
func (p *page) section(r *entry) {
	role, _ := summary(r)
	cls := []string{"msg", "r-" + role}
	if !p.onPath[r.ID] {
		cls = append(cls, "off")
	}
	if p.merged[r.ID] {
		cls = append(cls, "merged")
	}
	b := &p.b
	fmt.Fprintf(b, "<section id=\"e-%s\" class=\"%s\" data-id=\"%s\" data-parent=\"%s\">", esc(r.ID), strings.Join(cls, " "), esc(r.ID), esc(p.parent[r.ID]))
	if t, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil {
		fmt.Fprintf(b, "<time>%s</time>", t.UTC().Format("15:04:05"))
	}
	if l := p.labels[r.ID]; l != "" {
		fmt.Fprintf(b, "<span class=\"label\">%s</span>", esc(l))
	}
	switch r.Type {
	case "compaction", "branch_summary":
		_, what := summary(r)
		fmt.Fprintf(b, "<details class=\"summary\"><summary>%s: %s</summary>%s</details>", esc(role), esc(what), p.markdown(r.Str("summary")))
	case "custom_message":
		fmt.Fprintf(b, "<h4>%s</h4>", esc(r.Str("customType")))
		content, _ := r.Get("content")
		for _, bl := range blocksOf(content) {
			p.blockHTML(bl)
		}
	default:
		p.messageHTML(r.msg)
	}
	b.WriteString("</section>\n")
}

func (p *page) messageHTML(m session.Msg) {
	b := &p.b
	switch m.Role {
	case "toolResult":
		if res, ok := p.results[m.ToolCallID]; ok && p.merged[res.id] {
			return // drawn with its call
		}
		fmt.Fprintf(b, "<div class=\"tool%s\"><div class=\"tool-head\">result of %s</div>", errClass(m.IsError), esc(m.ToolName))
		p.output(m, "", false)
		b.WriteString("</div>")
		return
	case "bashExecution":
		fmt.Fprintf(b, "<div class=\"tool\"><div class=\"tool-head\">%s</div>", esc("$ "+m.Command))
		p.fold(m.Output, "", false)
		b.WriteString("</div>")
		return
	}
	for _, bl := range blocksOf(m.Content) {
		switch {
		case bl.Type == "toolCall":
			p.call(bl)
		case bl.Type == "text" && m.Role == "user" && bl.Text != "":
			// A prompt as it was typed: its line breaks and tabs kept,
			// not read as markdown paragraphs.
			fmt.Fprintf(b, "<div class=\"plain prompt\">%s</div>", esc(bl.Text))
		default:
			p.blockHTML(bl)
		}
	}
	if u, ok := session.UsageOf(m.Usage); m.Role == "assistant" && ok && u.Output > 0 {
		fmt.Fprintf(b, "<div class=\"usage\">%s · ↑%s ↓%s · $%.4f</div>", esc(m.Model), show.Tokens(int(u.Input)), show.Tokens(int(u.Output)), u.Cost)
	}
}

func errClass(e bool) string {
	if e {
		return " error"
	}
	return ""
}

func (p *page) blockHTML(bl block) {
	b := &p.b
	switch bl.Type {
	case "text":
		if bl.Text != "" {
			b.WriteString(p.markdown(bl.Text))
		}
	case "thinking":
		if bl.Thinking != "" {
			fmt.Fprintf(b, "<details class=\"thinking\" open><summary>Thinking</summary><div class=\"plain\">%s</div></details>", esc(bl.Thinking))
		}
	case "image":
		b.WriteString(imageHTML(bl))
	}
}

func imageHTML(bl block) string {
	if strings.HasPrefix(bl.MimeType, "image/") && bl.Data != "" && !strings.HasPrefix(bl.Data, session.BlobPrefix) {
		return fmt.Sprintf("<img alt=\"image\" src=\"data:%s;base64,%s\">", esc(bl.MimeType), esc(bl.Data))
	}
	return fmt.Sprintf("<p class=\"dim\">(image %s)</p>", esc(bl.MimeType))
}

func (p *page) markdown(src string) string {
	if p.o.Markdown != nil {
		return "<div class=\"md\">" + p.o.Markdown(src) + "</div>"
	}
	return "<div class=\"md plain\">" + esc(src) + "</div>"
}

// call draws a tool call with its result, when the file has it.
func (p *page) call(bl block) {
	res, ok := p.results[bl.ID]
	isErr := ok && res.msg.IsError
	b := &p.b
	fmt.Fprintf(b, "<div class=\"tool%s\" data-tool=\"%s\"><div class=\"tool-head\">%s</div>", errClass(isErr), esc(bl.Name), esc(show.ToolHeader(bl.Name, bl.Arguments)))
	var a map[string]json.RawMessage
	json.Unmarshal(bl.Arguments, &a)
	arg := func(k string) string {
		var s string
		json.Unmarshal(a[k], &s)
		return s
	}
	// The table of tools says what the header shows, and which argument
	// (a write's content) is shown with the call.
	t, _ := tooldef.Lookup(bl.Name)
	switch {
	case t.Header != tooldef.HeaderArgs:
		if c := arg(t.ContentArg); t.ContentArg != "" && c != "" {
			p.fold(c, arg("path"), false)
		}
	default:
		args, _ := json.MarshalIndent(json.RawMessage(bl.Arguments), "", "  ")
		if len(args) > 2 {
			fmt.Fprintf(b, "<pre class=\"args\">%s</pre>", esc(string(args)))
		}
	}
	if ok {
		p.merged[res.id] = true
		fmt.Fprintf(b, "<a id=\"e-%s\"></a>", esc(res.id))
		path := ""
		if t.OutputIsFile {
			path = arg("path")
		}
		p.output(res.msg, path, t.ContentArg != "")
		if t.InChat {
			p.subagent(res.msg)
		}
	}
	b.WriteString("</div>")
}

// subagent draws, inside a task call, the conversation of the sub-agent
// its result names (the active path of its session), folded.
func (p *page) subagent(m session.Msg) {
	var d struct {
		Session string `json:"session"`
	}
	json.Unmarshal(m.Details, &d)
	sub, ok := p.subs[d.Session]
	if !ok {
		return
	}
	ents, recs, _, err := sub.entries()
	if err != nil {
		return
	}
	sp := &page{o: p.o, ents: ents, recs: recs, labels: session.Labels(recs), subs: sub.Subagents}
	sp.index(sub.LeafID)
	for _, e := range ents {
		if sp.shown[e.ID] && sp.onPath[e.ID] {
			sp.section(e)
		}
	}
	fmt.Fprintf(&p.b, "<details class=\"subagent\"><summary>Sub-agent conversation <span class=\"dim\">%s</span></summary>\n%s</details>", esc(d.Session), sp.b.String())
}

// output draws a tool result: the diff of an edit, else its text folded
// (unless shownWithCall: a write's content is shown with the call), and
// its images.
func (p *page) output(m session.Msg, path string, shownWithCall bool) {
	var d struct {
		Diff string `json:"diff"`
	}
	json.Unmarshal(m.Details, &d)
	if d.Diff != "" && !m.IsError {
		p.diff(d.Diff)
		return
	}
	var text strings.Builder
	for _, bl := range blocksOf(m.Content) {
		switch bl.Type {
		case "text":
			text.WriteString(bl.Text)
		case "image":
			p.b.WriteString(imageHTML(bl))
		}
	}
	if shownWithCall && !m.IsError {
		return
	}
	p.fold(text.String(), path, m.IsError)
}

// fold draws text, highlighted as the file at path when one is given, the
// first FoldLines lines visible and the rest behind "show all".
func (p *page) fold(text, path string, isErr bool) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	lang := ""
	if path != "" && p.o.LangOf != nil && p.o.Highlight != nil {
		lang = p.o.LangOf(path)
	}
	lines := strings.Split(text, "\n")
	show := func(ls []string) string {
		s := strings.Join(ls, "\n")
		if lang != "" {
			return p.o.Highlight(s, lang)
		}
		return esc(s)
	}
	b := &p.b
	cls := "out"
	if isErr {
		cls += " error"
	}
	if len(lines) <= p.o.FoldLines+2 {
		fmt.Fprintf(b, "<pre class=\"%s\">%s</pre>", cls, show(lines))
		return
	}
	n := len(lines) - p.o.FoldLines
	fmt.Fprintf(b, "<div class=\"fold\" data-lines=\"%d\"><pre class=\"%s\">%s\n<span class=\"more\" hidden>%s</span></pre><button class=\"show-all\">show all (%d more lines)</button></div>",
		len(lines), cls, show(lines[:p.o.FoldLines]), show(lines[p.o.FoldLines:]), n)
}

// diff draws a unified diff as rows, the changed words marked.
func (p *page) diff(d string) {
	b := &p.b
	b.WriteString("<div class=\"diff\">")
	for _, l := range show.ParseDiff(d) {
		switch l.Kind {
		case 'h':
			continue
		case '@':
			fmt.Fprintf(b, "<div class=\"hunk\">%s</div>", esc(l.Text))
		case ' ':
			fmt.Fprintf(b, "<div class=\"ctx\"> %s</div>", esc(l.Text))
		default:
			cls := "del"
			if l.Kind == '+' {
				cls = "add"
			}
			fmt.Fprintf(b, "<div class=\"%s\">%c", cls, l.Kind)
			at := 0
			for _, sp := range l.Changed {
				if sp[0] < at || sp[1] > len(l.Text) {
					continue
				}
				fmt.Fprintf(b, "%s<mark>%s</mark>", esc(l.Text[at:sp[0]]), esc(l.Text[sp[0]:sp[1]]))
				at = sp[1]
			}
			b.WriteString(esc(l.Text[at:]) + "</div>")
		}
	}
	b.WriteString("</div>")
}
