// Package notebook reads and edits Jupyter notebooks (.ipynb, nbformat 4),
// pure: a notebook's cells shown with their outputs for the model (images
// apart), and the notebook_edit tool's operations — replace, insert or
// delete a cell by id, change its type — written back as Jupyter writes
// (keys sorted, one-space indent), so an edit changes only its cell.
package notebook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Notebook is a decoded notebook; members it does not know are kept.
type Notebook struct {
	doc   map[string]any
	cells []any
}

// Parse decodes a notebook: a JSON object with a cells array.
func Parse(b []byte) (*Notebook, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a Jupyter notebook: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a Jupyter notebook: more after the JSON object")
	}
	cells, ok := doc["cells"].([]any)
	if !ok {
		return nil, errors.New("not a Jupyter notebook: no cells array")
	}
	for i, c := range cells {
		if _, ok := c.(map[string]any); !ok {
			return nil, fmt.Errorf("not a Jupyter notebook: cell %d is not an object", i)
		}
	}
	return &Notebook{doc: doc, cells: cells}, nil
}

// Bytes is the notebook as Jupyter writes it: keys sorted, one space of
// indent, non-ASCII as it is, a final newline.
func (nb *Notebook) Bytes() []byte {
	nb.doc["cells"] = nb.cells
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	enc.Encode(nb.doc) // values decoded from JSON always encode
	return buf.Bytes()
}

func (nb *Notebook) cell(i int) map[string]any { return nb.cells[i].(map[string]any) }

// ID is how a cell is named to the model: its id, or cell-N (from 0) in a
// notebook without ids.
func (nb *Notebook) ID(i int) string {
	if id, ok := nb.cell(i)["id"].(string); ok && id != "" {
		return id
	}
	return "cell-" + strconv.Itoa(i)
}

// find is the index of the cell named id.
func (nb *Notebook) find(id string) (int, error) {
	for i := range nb.cells {
		if nb.ID(i) == id {
			return i, nil
		}
	}
	if n, ok := strings.CutPrefix(id, "cell-"); ok {
		if i, err := strconv.Atoi(n); err == nil && i >= 0 && i < len(nb.cells) {
			return i, nil
		}
	}
	var ids []string
	for i := range nb.cells {
		ids = append(ids, nb.ID(i))
	}
	return 0, fmt.Errorf("no cell %q in the notebook (cells: %s)", id, strings.Join(ids, ", "))
}

// Edit is one notebook_edit operation.
type Edit struct {
	Mode   string // replace (default), insert or delete
	CellID string // the cell replaced or deleted; insert goes after it (at the top without one)
	Source string // the new source
	Type   string // code, markdown or raw: the new cell's type, or a replaced cell's new type
	// HasSource says Source was given (a replace may change the type only).
	HasSource bool
}

// Apply applies e, returning the id of the cell it touched.
func (nb *Notebook) Apply(e Edit) (string, error) {
	if e.Type != "" && !slices.Contains([]string{"code", "markdown", "raw"}, e.Type) {
		return "", fmt.Errorf("cell_type %q: want code, markdown or raw", e.Type)
	}
	switch e.Mode {
	case "", "replace":
		if e.CellID == "" {
			return "", errors.New("replace needs the cell_id of the cell to replace")
		}
		if !e.HasSource && e.Type == "" {
			return "", errors.New("replace needs a new_source or a cell_type")
		}
		i, err := nb.find(e.CellID)
		if err != nil {
			return "", err
		}
		c := nb.cell(i)
		if e.HasSource {
			c["source"] = lines(e.Source)
		}
		if e.Type != "" {
			c["cell_type"] = e.Type
		}
		settle(c)
		return nb.ID(i), nil
	case "insert":
		if e.Type == "" {
			return "", errors.New("insert needs a cell_type (code, markdown or raw)")
		}
		at := 0
		if e.CellID != "" {
			i, err := nb.find(e.CellID)
			if err != nil {
				return "", err
			}
			at = i + 1
		}
		c := map[string]any{"cell_type": e.Type, "metadata": map[string]any{}, "source": lines(e.Source)}
		if nb.hasIDs() {
			c["id"] = nb.newID(e.Source, at)
		}
		settle(c)
		nb.cells = slices.Insert(nb.cells, at, any(c))
		return nb.ID(at), nil
	case "delete":
		if e.CellID == "" {
			return "", errors.New("delete needs the cell_id of the cell to delete")
		}
		i, err := nb.find(e.CellID)
		if err != nil {
			return "", err
		}
		id := nb.ID(i)
		nb.cells = slices.Delete(nb.cells, i, i+1)
		return id, nil
	}
	return "", fmt.Errorf("edit_mode %q: want replace, insert or delete", e.Mode)
}

// settle gives a changed cell the members its type has: a code cell no
// outputs and no execution count yet (they belonged to the old source),
// other cells neither member.
func settle(c map[string]any) {
	if c["cell_type"] == "code" {
		c["outputs"] = []any{}
		c["execution_count"] = nil
		return
	}
	delete(c, "outputs")
	delete(c, "execution_count")
}

// hasIDs says whether cells carry ids (nbformat 4.5 and later).
func (nb *Notebook) hasIDs() bool {
	num := func(k string) int64 {
		n, _ := nb.doc[k].(json.Number)
		v, _ := n.Int64()
		return v
	}
	major, minor := num("nbformat"), num("nbformat_minor")
	return major > 4 || major == 4 && minor >= 5
}

// newID is a fresh cell id made from the cell's source and place, so the
// same edit gives the same id.
func (nb *Notebook) newID(source string, at int) string {
	for n := 0; ; n++ {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%d\x00%s", at, n, source)))
		id := hex.EncodeToString(sum[:4])
		if _, err := nb.find(id); err != nil {
			return id
		}
	}
}

// lines is a source as Jupyter stores it: lines, each but the last ending
// in a newline.
func lines(s string) []any {
	out := []any{}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// text joins a multiline string of the format (a string or lines).
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, l := range v {
			s, _ := l.(string)
			b.WriteString(s)
		}
		return b.String()
	}
	return ""
}

// Image is an image output of a cell.
type Image struct {
	Cell     string
	MimeType string
	Data     string // base64
}

// View is the notebook for the model: each cell with its id, type and
// source, and a code cell's outputs (text, errors with their tracebacks
// as Jupyter stores them, colour escapes included; images named in the
// text and returned apart).
func (nb *Notebook) View() (string, []Image) {
	var b strings.Builder
	var images []Image
	lang := ""
	if md, ok := nb.doc["metadata"].(map[string]any); ok {
		if li, ok := md["language_info"].(map[string]any); ok {
			lang, _ = li["name"].(string)
		}
	}
	fmt.Fprintf(&b, "Jupyter notebook, %d cells", len(nb.cells))
	if lang != "" {
		b.WriteString(", " + lang)
	}
	b.WriteString("\n")
	for i := range nb.cells {
		c := nb.cell(i)
		typ, _ := c["cell_type"].(string)
		fmt.Fprintf(&b, "\n<cell id=%q type=%q", nb.ID(i), typ)
		if n, ok := c["execution_count"].(json.Number); ok {
			fmt.Fprintf(&b, " execution_count=%s", n)
		}
		b.WriteString(">\n")
		if src := text(c["source"]); src != "" {
			b.WriteString(strings.TrimRight(src, "\n") + "\n")
		}
		outs, _ := c["outputs"].([]any)
		for _, o := range outs {
			om, _ := o.(map[string]any)
			s, imgs := output(om, nb.ID(i))
			images = append(images, imgs...)
			if s != "" {
				b.WriteString("<output>\n" + strings.TrimRight(s, "\n") + "\n</output>\n")
			}
		}
		b.WriteString("</cell>\n")
	}
	return b.String(), images
}

// output is the text of one output, and its images.
func output(o map[string]any, cell string) (string, []Image) {
	switch o["output_type"] {
	case "stream":
		return text(o["text"]), nil
	case "error":
		var tb []string
		if l, ok := o["traceback"].([]any); ok {
			for _, x := range l {
				s, _ := x.(string)
				tb = append(tb, s)
			}
		}
		return fmt.Sprintf("%s: %s\n%s", o["ename"], o["evalue"], strings.Join(tb, "\n")), nil
	case "execute_result", "display_data":
		data, _ := o["data"].(map[string]any)
		var images []Image
		var notes []string
		for _, mt := range []string{"image/png", "image/jpeg", "image/gif", "image/webp"} {
			if d := text(data[mt]); d != "" {
				images = append(images, Image{Cell: cell, MimeType: mt, Data: strings.Join(strings.Fields(d), "")})
				notes = append(notes, "["+mt+" image]")
			}
		}
		for _, mt := range []string{"text/plain", "text/markdown"} {
			if s := text(data[mt]); s != "" {
				return strings.Join(append([]string{s}, notes...), "\n"), images
			}
		}
		return strings.Join(notes, "\n"), images
	}
	return "", nil
}
