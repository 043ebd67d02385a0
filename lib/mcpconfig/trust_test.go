package mcpconfig

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTrust(t *testing.T) {
	list, err := ParseTrust([]byte(`[{"root":"/a","trustedAt":"2026-01-01T00:00:00Z","note":1},{"root":"/b"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"/a", "/b"}, TrustRoots(list)); d != "" {
		t.Errorf("roots (-want +got):\n%s", d)
	}
	if list[0]["note"] != 1.0 {
		t.Errorf("other fields are kept: %v", list[0])
	}
	if list, err := ParseTrust([]byte(" \n")); err != nil || len(list) != 0 {
		t.Errorf("empty file: %v, %v", list, err)
	}
	for data, want := range map[string]string{
		"[\n{\"root\":\"/a\"},\n{\"root\": }\n]": "line 3: invalid character '}' looking for beginning of value",
		`{"root":"/a"}`:                          "line 1: json: cannot unmarshal object into Go value of type []map[string]interface {}",
		`[{"root":"/a"},{"root":5}]`:             `entry 2: "root" must be a directory name (a non-empty string)`,
		`[{"trustedAt":"x"}]`:                    `entry 1: "root" must be a directory name (a non-empty string)`,
		`[1]`:                                    "line 1: json: cannot unmarshal number into Go value of type map[string]interface {}",
	} {
		if _, err := ParseTrust([]byte(data)); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", data, err, want)
		}
	}
}

func FuzzParseTrust(f *testing.F) {
	f.Add(`[{"root":"/a","trustedAt":"x"}]`)
	f.Add(`[{"root":5}]`)
	f.Add("[\n{\"root\": }\n]")
	f.Fuzz(func(t *testing.T, data string) {
		list, err := ParseTrust([]byte(data))
		if err != nil {
			return
		}
		for _, r := range TrustRoots(list) {
			if r == "" {
				t.Fatalf("an empty root from %q", data)
			}
		}
	})
}
