package tui

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// imageExts are the files a prompt attaches as images (agent-chat's @FILE).
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// droppedImage reads a paste as a terminal writes a file dropped on it: one
// path, maybe quoted or with its spaces escaped. ok when it names an image
// file; a path with white space in it is copied to a temporary file (temp),
// since an @path is one word: the model removes it (temps).
func droppedImage(paste, dir string) (path string, temp, ok bool) {
	p := strings.TrimSpace(paste)
	if len(p) >= 2 && (p[0] == '\'' && p[len(p)-1] == '\'' || p[0] == '"' && p[len(p)-1] == '"') {
		p = p[1 : len(p)-1]
	} else {
		p = strings.ReplaceAll(p, `\ `, " ")
	}
	p = strings.TrimPrefix(p, "file://")
	if p == "" || strings.ContainsAny(p, "\n\r") || !imageExts[strings.ToLower(filepath.Ext(p))] {
		return "", false, false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return "", false, false
	}
	if !strings.ContainsAny(p, " \t") {
		return p, false, true
	}
	src, err := os.Open(p)
	if err != nil {
		return "", false, false
	}
	defer src.Close()
	tmp, err := saveTemp(src, filepath.Ext(p))
	return tmp, err == nil, err == nil
}

// temps are the temporary copies the editor attached (a dropped image
// whose path has spaces, the clipboard's image): each is removed once a
// run that attached it ended (agent-chat keeps the image in the session),
// the others when agent ends.
type temps map[string]bool

// drop removes the copies among files (a run's attachments), or all of
// them (files nil).
func (t temps) drop(files []string) {
	for p := range t {
		if files == nil || slices.Contains(files, p) {
			os.Remove(p)
			delete(t, p)
		}
	}
}

// saveTemp writes r to a new temporary file with suffix ext.
func saveTemp(r io.Reader, ext string) (string, error) {
	f, err := os.CreateTemp("", "agent-paste-*"+ext)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// clipboardTools read an image from the clipboard: Wayland's, then X11's.
var clipboardTools = [][]string{
	{"wl-paste", "--no-newline", "--type", "image/png"},
	{"xclip", "-selection", "clipboard", "-target", "image/png", "-out"},
}

// clipboardImage is the clipboard's PNG image saved to a temporary file.
func clipboardImage() (string, error) {
	found := false
	for _, t := range clipboardTools {
		if _, err := exec.LookPath(t[0]); err != nil {
			continue
		}
		found = true
		out, err := exec.Command(t[0], t[1:]...).Output()
		if err != nil || !bytes.HasPrefix(out, []byte("\x89PNG")) {
			continue
		}
		return saveTemp(bytes.NewReader(out), ".png")
	}
	if !found {
		return "", errors.New("no clipboard tool (wl-paste or xclip): drop the image file on the terminal, or type @path")
	}
	return "", errors.New("the clipboard holds no image")
}

// pasteImage (ctrl+v) attaches the clipboard's image as an @path.
func (m *Model) pasteImage() tea.Cmd {
	p, err := clipboardImage()
	if err != nil {
		m.info = "ctrl+v: " + err.Error()
		return nil
	}
	m.temps[p] = true
	m.ed.Insert("@" + p + " ")
	m.edited()
	return nil
}
