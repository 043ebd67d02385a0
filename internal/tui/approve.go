package tui

import (
	"encoding/json"
	"fmt"
	"github.com/agentutils/agentutils/lib/tooldef"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/lib/edit"
	"github.com/agentutils/agentutils/lib/render"
	"github.com/agentutils/agentutils/lib/render/show"
)

// approvalGuard is how long an approval, once shown, and the editor, once
// typed in, let no key answer: keys typed before the person could read it
// go to the editor, as a browser's permission prompt ignores the clicks
// of its first moment.
const approvalGuard = 600 * time.Millisecond

// approvals are the calls waiting for the person, the first one shown.
// Keys answer it only when the editor is idle (empty, and not typed in
// for approvalGuard, nor within approvalGuard of the approval appearing):
// y allows, a allows always (this command), n asks for a reason (enter
// sends it, esc denies without one), esc denies; ^C denies and aborts the
// run. Enter never answers: with a prompt in the editor it queues it.
type approvals struct {
	queue   []*pending
	shownAt time.Time // when the first one was shown
	denying bool      // the reason of a denial is being typed
	reason  *editor
}

// pending is a request with what it shows.
type pending struct {
	req    *approval.Request
	detail string
	ask    *asking // the ask tool's questions (a picker)
	plan   *string // an exit_plan_mode's plan, as the person may have edited it
	edited bool    // they did (e)
}

func (q *approvals) active() *pending {
	if len(q.queue) == 0 {
		return nil
	}
	return q.queue[0]
}

func (q *approvals) add(p *pending, now time.Time) {
	if len(q.queue) == 0 {
		q.shownAt = now
	}
	q.queue = append(q.queue, p)
}

// armed: a key may answer now (the editor, last typed in at lastEdit,
// is empty).
func (q *approvals) armed(edEmpty bool, lastEdit, now time.Time) bool {
	from := q.shownAt
	if lastEdit.After(from) {
		from = lastEdit
	}
	return edEmpty && now.Sub(from) >= approvalGuard
}

// answerKey is what a key does to the shown approval: an answer (with
// always: remember it), or handled without one (the reason's editing,
// a key swallowed); !handled leaves the key to the editor.
type answerKey struct {
	answer  *approval.Answer
	always  bool
	handled bool
}

func (q *approvals) key(k tea.KeyMsg, armed bool) answerKey {
	switch {
	case k.Type == tea.KeyCtrlC:
		return answerKey{answer: &approval.Answer{Abort: true, Reason: "aborted by the user"}, handled: true}
	case q.active().ask != nil:
		return q.active().ask.key(k, armed)
	case q.denying:
		switch k.Type {
		case tea.KeyEnter:
			return answerKey{answer: &approval.Answer{Reason: strings.TrimSpace(q.reason.String())}, handled: true}
		case tea.KeyEsc:
			return answerKey{answer: &approval.Answer{}, handled: true}
		}
		editKey(q.reason, k)
		return answerKey{handled: true}
	case k.Type == tea.KeyEsc:
		if armed {
			return answerKey{answer: &approval.Answer{}, handled: true}
		}
		return answerKey{handled: true} // not an abort of the run either
	case !armed || k.Type != tea.KeyRunes || k.Paste:
		return answerKey{}
	}
	switch string(k.Runes) {
	case "y":
		return answerKey{answer: &approval.Answer{Allow: true}, handled: true}
	case "a":
		return answerKey{answer: &approval.Answer{Allow: true}, always: true, handled: true}
	case "n":
		q.denying = true
		q.reason = newEditor(nil)
		return answerKey{handled: true}
	}
	return answerKey{}
}

// done drops the shown approval; the next one is shown from now.
func (q *approvals) done(now time.Time) {
	q.queue = q.queue[1:]
	q.denying, q.reason = false, nil
	q.shownAt = now
}

// view draws the shown approval: who asks (from: a sub-agent's task
// call, "" for the agent's own calls), its summary, what it does, and
// what answers it in this state.
func (q *approvals) view(width int, armed, edEmpty bool, from string) string {
	p := q.active()
	var b strings.Builder
	if from != "" {
		b.WriteString(accent.Render(clip("sub-agent "+from+" asks:", width)) + "\n")
	}
	switch {
	case p.ask != nil:
		b.WriteString(p.ask.view(width, armed))
	case p.plan != nil:
		b.WriteString(yellow.Render("Approve this plan? (plan mode: so far only tools that read ran)") + "\n")
	default:
		b.WriteString(yellow.Render("Allow "+show.ToolHeader(p.req.In.ToolName, p.req.In.ToolInput)+" ?") + "\n")
	}
	if p.detail != "" {
		b.WriteString(p.detail)
	}
	if len(q.queue) > 1 {
		b.WriteString(dim.Render(fmt.Sprintf("(%d more waiting)", len(q.queue)-1)) + "\n")
	}
	switch {
	case p.ask != nil: // its keys are in its view
	case q.denying:
		b.WriteString("why not? " + dim.Render("(enter sends the reason to the model, esc denies without one)") + "\n")
		b.WriteString(q.reason.View(width, true) + "\n")
	case !edEmpty && p.plan != nil:
		b.WriteString(dim.Render("your prompt stays in the editor: enter queues it, ^U clears it; then y / a / e / n / esc answer") + "\n")
	case armed && p.plan != nil:
		b.WriteString(bold.Render("[y]") + " yes, ask before edits  " + bold.Render("[a]") + " yes, accept edits  " + bold.Render("[e]") + " edit the plan  " + bold.Render("[n]") + " no, say why  " + bold.Render("[esc]") + " no\n")
	case !edEmpty:
		b.WriteString(dim.Render("your prompt stays in the editor: enter queues it, ^U clears it; then y / a / n / esc answer") + "\n")
	case !armed:
		b.WriteString(dim.Render("y / a / n / esc answer in a moment (keys typed now go to the editor)") + "\n")
	case width < 90:
		b.WriteString(bold.Render("[y]") + " yes " + bold.Render("[a]") + " always " + bold.Render("[n]") + " no, say why " + bold.Render("[esc]") + " no\n")
	default:
		b.WriteString(bold.Render("[y]") + " yes  " + bold.Render("[a]") + " always for this command  " + bold.Render("[n]") + " no, say why  " + bold.Render("[esc]") + " no  " + dim.Render("(enter does not answer)") + "\n")
	}
	return b.String()
}

// approvalDetail is what a call does, shown under its summary: the diff
// of an edit or a patch, the head and size of a written file, a bash
// command whole with its working directory and the sandbox mode. lines
// caps a diff or a head.
func approvalDetail(in hooks.Input, dir, sandbox string, width, lines int, color bool) string {
	if in.Cwd != "" {
		dir = in.Cwd
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	r := render.New(render.Options{Width: width, Color: color, DiffLines: max(lines, 5)})
	var a struct {
		Command, Path, Input, Content string
		OldText                       string `json:"old_text"`
		NewText                       string `json:"new_text"`
		All                           bool
	}
	json.Unmarshal(in.ToolInput, &a)
	switch in.ToolName {
	case "bash":
		var b strings.Builder
		for _, l := range strings.Split(strings.TrimRight(a.Command, "\n"), "\n") {
			b.WriteString("  " + accent.Render(bold.Render(clip(l, width-2))) + "\n")
		}
		b.WriteString(dim.Render(clip("in "+dir+" · sandbox "+sandbox, width)) + "\n")
		return b.String()
	case "edit":
		old, err := os.ReadFile(abs(a.Path))
		if err != nil {
			return red.Render("  "+err.Error()) + "\n"
		}
		res, err := edit.Replace(a.Path, string(old), a.OldText, a.NewText, a.All, true, 0)
		if err != nil {
			return red.Render(clip("  the edit will fail: "+err.Error(), width)) + "\n"
		}
		return r.Diff(res.Diff)
	case "apply_patch":
		return patchDetail(a.Input, abs, r, width)
	case "write":
		return writeDetail(a.Path, a.Content, abs, width, lines)
	}
	if t, _ := tooldef.Lookup(in.ToolName); t.Class == tooldef.Network {
		// asked only because bash has no network (agent-tool's permit)
		return dim.Render(clip("  reads the network, which the sandbox ("+sandbox+") keeps bash off", width)) + "\n"
	}
	return ""
}

func patchDetail(patch string, abs func(string) string, r *render.Renderer, width int) string {
	ops, err := edit.ParsePatch(patch)
	if err != nil {
		return red.Render(clip("  the patch will fail: "+err.Error(), width)) + "\n"
	}
	var b strings.Builder
	for _, op := range ops {
		switch op.Op {
		case edit.OpAdd:
			b.WriteString(r.Diff(edit.Diff(op.Path, "", op.Text)))
		case edit.OpDelete:
			b.WriteString(red.Render("  delete "+op.Path) + "\n")
		case edit.OpUpdate:
			old, err := os.ReadFile(abs(op.Path))
			if err != nil {
				b.WriteString(red.Render("  "+err.Error()) + "\n")
				continue
			}
			text, err := edit.ApplyChunks(op.Path, string(old), op.Chunks)
			if err != nil {
				b.WriteString(red.Render(clip("  "+op.Path+": the patch will fail: "+err.Error(), width)) + "\n")
				continue
			}
			if op.MoveTo != "" {
				b.WriteString(dim.Render("  "+op.Path+" → "+op.MoveTo) + "\n")
			}
			b.WriteString(r.Diff(edit.Diff(op.Path, string(old), text)))
		}
	}
	return b.String()
}

func writeDetail(path, content string, abs func(string) string, width, lines int) string {
	n := strings.Count(content, "\n")
	if content != "" && !strings.HasSuffix(content, "\n") {
		n++
	}
	what := fmt.Sprintf("  a new file: %d lines, %s", n, size(len(content)))
	if old, err := os.ReadFile(abs(path)); err == nil {
		what = fmt.Sprintf("  replaces %d lines (%s) with %d lines, %s", strings.Count(string(old), "\n"), size(len(old)), n, size(len(content)))
	}
	var b strings.Builder
	b.WriteString(dim.Render(what) + "\n")
	b.WriteString(headLines(content, width, lines, ""))
	return b.String()
}

// headLines are text's first lines, indented, tabs as four spaces, each
// clipped to width, and a dim "… N more lines" (and more) when it has more.
func headLines(text string, width, lines int, more string) string {
	var b strings.Builder
	ls := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range ls {
		if i == lines {
			b.WriteString(dim.Render(fmt.Sprintf("  … %d more lines%s", len(ls)-lines, more)) + "\n")
			break
		}
		b.WriteString("  " + clip(strings.ReplaceAll(l, "\t", "    "), width-2) + "\n")
	}
	return b.String()
}

// size is a byte count written short.
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
