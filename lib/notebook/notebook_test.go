package notebook

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func load(t *testing.T) ([]byte, *Notebook) {
	t.Helper()
	b, err := os.ReadFile("testdata/sales.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, nb
}

// A notebook Jupyter wrote comes back byte for byte.
func TestRoundTrip(t *testing.T) {
	b, nb := load(t)
	if d := cmp.Diff(string(b), string(nb.Bytes())); d != "" {
		t.Error(d)
	}
}

func TestView(t *testing.T) {
	_, nb := load(t)
	got, images := nb.View()
	want := `Jupyter notebook, 4 cells, python

<cell id="intro" type="markdown">
# Sales
Totals per month — in €.
</cell>

<cell id="load" type="code" execution_count=1>
import pandas as pd
df = pd.read_csv("sales.csv")
<output>
loaded 12 rows
</output>
</cell>

<cell id="plot" type="code" execution_count=2>
df.plot()
42
<output>
<Figure size 640x480>
[image/png image]
</output>
<output>
42
</output>
</cell>

<cell id="boom" type="code" execution_count=3>
1/0
<output>
ZeroDivisionError: division by zero
` + "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero" + `
</output>
</cell>
`
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([]Image{{Cell: "plot", MimeType: "image/png", Data: "iVBORw0KGgo="}}, images); d != "" {
		t.Error(d)
	}
}

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   Edit
		id     string
		cells  string // the cells' ids and types after, "id:type ..."
		check  string // a substring of the notebook after
		errMsg string
	}{
		{"replace", Edit{CellID: "load", Source: "x = 1\ny = 2", HasSource: true}, "load", "intro:markdown load:code plot:code boom:code",
			"\"execution_count\": null,\n   \"id\": \"load\",\n   \"metadata\": {\n    \"tags\": [\n     \"setup\"\n    ]\n   },\n   \"outputs\": [],\n   \"source\": [\n    \"x = 1\\n\",\n    \"y = 2\"\n   ]", ""},
		{"to markdown", Edit{Mode: "replace", CellID: "plot", Type: "markdown"}, "plot", "intro:markdown load:code plot:markdown boom:code",
			"\"cell_type\": \"markdown\",\n   \"id\": \"plot\",\n   \"metadata\": {},\n   \"source\": [\n    \"df.plot()\\n\",", ""},
		{"insert after", Edit{Mode: "insert", CellID: "intro", Type: "code", Source: "print(1)\n", HasSource: true}, "", "intro:markdown NEW:code load:code plot:code boom:code", `"print(1)\n"`, ""},
		{"insert at top", Edit{Mode: "insert", Type: "markdown", Source: "Top", HasSource: true}, "", "NEW:markdown intro:markdown load:code plot:code boom:code", `"Top"`, ""},
		{"delete by index", Edit{Mode: "delete", CellID: "cell-3"}, "boom", "intro:markdown load:code plot:code", "", ""},
		{"no such cell", Edit{Mode: "delete", CellID: "nope"}, "", "", "", `no cell "nope" in the notebook (cells: intro, load, plot, boom)`},
		{"insert without type", Edit{Mode: "insert", Source: "x", HasSource: true}, "", "", "", "insert needs a cell_type"},
		{"bad type", Edit{CellID: "load", Type: "python"}, "", "", "", `cell_type "python": want code, markdown or raw`},
		{"replace nothing", Edit{CellID: "load"}, "", "", "", "replace needs a new_source or a cell_type"},
		{"bad mode", Edit{Mode: "move", CellID: "load"}, "", "", "", `edit_mode "move"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, nb := load(t)
			id, err := nb.Apply(tc.edit)
			if tc.errMsg != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errMsg) {
					t.Fatalf("error %v, want %q", err, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var cells []string
			for i := range nb.cells {
				cid := nb.ID(i)
				if tc.id == "" && cid == id {
					cid = "NEW"
				}
				cells = append(cells, cid+":"+nb.cell(i)["cell_type"].(string))
			}
			if d := cmp.Diff(tc.cells, strings.Join(cells, " ")); d != "" {
				t.Error(d)
			}
			if tc.id != "" && id != tc.id {
				t.Errorf("id %q, want %q", id, tc.id)
			}
			again, err := Parse(nb.Bytes())
			if err != nil || !strings.Contains(string(again.Bytes()), tc.check) {
				t.Errorf("after the edit (%v):\n%s\nlacks\n%s", err, nb.Bytes(), tc.check)
			}
		})
	}
}

// A notebook before nbformat 4.5 gets no cell ids; its cells are cell-N.
func TestNoIDs(t *testing.T) {
	nb, err := Parse([]byte(`{"cells":[{"cell_type":"code","source":"a","metadata":{},"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":2}`))
	if err != nil {
		t.Fatal(err)
	}
	id, err := nb.Apply(Edit{Mode: "insert", CellID: "cell-0", Type: "raw", Source: "b", HasSource: true})
	if err != nil || id != "cell-1" || strings.Contains(string(nb.Bytes()), `"id"`) {
		t.Errorf("id %q, %v:\n%s", id, err, nb.Bytes())
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		`[]`:               "not a Jupyter notebook: json: cannot unmarshal array",
		`{"cells":{}}`:     "not a Jupyter notebook: no cells array",
		`{"cells":[1]}`:    "not a Jupyter notebook: cell 0 is not an object",
		`{"cells":[],"x":`: "not a Jupyter notebook: unexpected EOF",
		`{"cells":[]} {}`:  "not a Jupyter notebook: more after the JSON object",
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", in, err, want)
		}
	}
}

func FuzzNotebook(f *testing.F) {
	b, _ := os.ReadFile("testdata/sales.ipynb")
	f.Add(b, "load", "insert")
	f.Add([]byte(`{"cells":[{"cell_type":"code","outputs":[{"output_type":"error","traceback":[1]}]}],"nbformat":"4"}`), "cell-0", "replace")
	f.Fuzz(func(t *testing.T, data []byte, id, mode string) {
		nb, err := Parse(data)
		if err != nil {
			return
		}
		nb.View()
		if _, err := nb.Apply(Edit{Mode: mode, CellID: id, Type: "code", Source: "x", HasSource: true}); err != nil {
			return
		}
		if _, err := Parse(nb.Bytes()); err != nil {
			t.Fatalf("an edited notebook does not parse: %v", err)
		}
	})
}
