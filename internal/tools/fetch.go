package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"

	"github.com/agentutils/agentutils/lib/event"
)

const (
	fetchTimeout   = 30 // seconds, the default
	fetchMaxTime   = 120
	fetchMaxBody   = 10 << 20 // bytes read of a response
	fetchRedirects = 10
)

// fetchTool gets a URL over http(s): HTML as markdown, text as it is,
// images as read shows them; the head in the result, the whole in an
// artifact file when it is longer.
func fetchTool() Tool {
	return Tool{
		Def: def("fetch", "Fetch a web page or file over http or https (redirects followed, at most 10 MB read). HTML is turned into markdown, text and JSON are shown as they are, images as images. The first 50KB are returned and the whole text is kept in an artifact file. Private and loopback addresses are refused unless the tool process allows them. Default timeout 30 s (1-120).",
			`{"type":"object","properties":{"url":{"type":"string","description":"an http:// or https:// URL"},"timeout":{"type":"integer","minimum":1,"maximum":120,"description":"seconds"}},"required":["url"],"additionalProperties":false}`),
		Run: runFetch,
	}
}

func runFetch(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
	var a struct {
		URL     string
		Timeout int
	}
	if err := decode(args, &a); err != nil {
		return event.ToolOutput{}, err
	}
	u, err := url.Parse(strings.TrimSpace(a.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return event.ToolOutput{}, fmt.Errorf("Cannot fetch %q: only http:// and https:// URLs are fetched.", a.URL)
	}
	if a.Timeout <= 0 {
		a.Timeout = fetchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(min(a.Timeout, fetchMaxTime))*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return event.ToolOutput{}, fmt.Errorf("Cannot fetch %s: %v", a.URL, err)
	}
	req.Header.Set("User-Agent", "agentutils-fetch/1")
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5")
	resp, err := fetchClient(env.AllowPrivateNet).Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return event.ToolOutput{}, fmt.Errorf("Fetching %s timed out after %d s.", a.URL, a.Timeout)
		}
		return event.ToolOutput{}, fmt.Errorf("Cannot fetch %s: %v", a.URL, unwrapURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBody+1))
	if err != nil {
		return event.ToolOutput{}, fmt.Errorf("Cannot read %s: %v", a.URL, unwrapURL(err))
	}
	cut := len(body) > fetchMaxBody
	if cut {
		body = body[:fetchMaxBody]
	}
	final := resp.Request.URL.String()
	det := map[string]any{"url": final, "status": resp.StatusCode, "contentType": resp.Header.Get("Content-Type"), "bytes": len(body)}
	if resp.StatusCode >= 400 {
		return event.ToolOutput{Details: details(det)}, fmt.Errorf("Fetching %s: HTTP %s.\n\n%s", final, resp.Status, headOf(string(body), 2000))
	}
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ctype == "" {
		ctype = http.DetectContentType(body)
		ctype, _, _ = mime.ParseMediaType(ctype)
	}
	if strings.HasPrefix(ctype, "image/") {
		if mt := imageType(body); mt != "" && !cut {
			return event.ToolOutput{Content: []event.Content{event.Text("Fetched image " + final + " [" + mt + "]"),
				{Type: "image", Data: base64.StdEncoding.EncodeToString(body), MimeType: mt}}, Details: details(det)}, nil
		}
	}
	text, err := fetchedText(ctype, body, resp.Request.URL)
	if err != nil {
		return event.ToolOutput{Details: details(det)}, fmt.Errorf("Fetched %s (%s, %s) but cannot show it: %v", final, ctype, event.FormatBytes(len(body)), err)
	}
	head := fmt.Sprintf("URL: %s\nContent-Type: %s\n\n", final, ctype)
	if len(text) <= maxBytes && !cut {
		return event.ToolOutput{Content: []event.Content{event.Text(head + text)}, Details: details(det)}, nil
	}
	state, err := env.stateDir()
	if err != nil {
		return event.ToolOutput{}, err
	}
	artifact := filepath.Join(state, fmt.Sprintf("%d.fetch.md", env.Now().UnixNano()))
	if err := os.WriteFile(artifact, []byte(text), 0o644); err != nil {
		return event.ToolOutput{}, err
	}
	det["artifact"] = artifact
	shown := headOf(text, maxBytes)
	note := fmt.Sprintf("\n\n[Showing the first %s of %s. Whole text: %s (read it with offset and limit)", event.FormatBytes(len(shown)), event.FormatBytes(len(text)), artifact)
	if cut {
		note += fmt.Sprintf("; the response was cut at %s", event.FormatBytes(fetchMaxBody))
	}
	return event.ToolOutput{Content: []event.Content{event.Text(head + shown + note + "]")}, Details: details(det)}, nil
}

// fetchedText is a response body as text for the model: HTML as markdown
// (GitHub's tables and strikethrough too; links made absolute against u,
// the page's final URL), text and JSON as they are.
func fetchedText(ctype string, body []byte, u *url.URL) (string, error) {
	switch {
	case ctype == "text/html" || ctype == "application/xhtml+xml":
		conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(),
			table.NewTablePlugin(), strikethrough.NewStrikethroughPlugin()))
		return conv.ConvertString(string(body), converter.WithDomain(u.String()))
	case strings.HasPrefix(ctype, "text/"), ctype == "application/json", strings.HasSuffix(ctype, "+json"),
		ctype == "application/xml", strings.HasSuffix(ctype, "+xml"), ctype == "application/javascript":
		return string(body), nil
	}
	return "", errors.New("not text, HTML or an image")
}

// headOf is at most n bytes of s, cut at a line end when there is one.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		return s[:i+1]
	}
	return strings.ToValidUTF8(s, "")
}

// fetchClient is an HTTP client that follows at most 10 redirects, to
// http(s) only, uses no proxy, and — unless allowPrivate — connects to no
// loopback, private, link-local or unspecified address: the check is on
// the address dialled, so a name that resolves to one (or a redirect to
// one) is refused too.
func fetchClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if ip := ap.Addr().Unmap(); !public(ip) {
				return fmt.Errorf("%s is a private or loopback address (refused: the tool process does not allow the private network)", ip)
			}
			return nil
		}
	}
	tr := &http.Transport{Proxy: nil, DialContext: d.DialContext, ForceAttemptHTTP2: true, TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: 30 * time.Second}
	return &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= fetchRedirects {
			return fmt.Errorf("more than %d redirects", fetchRedirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("a redirect to %s: only http and https are followed", req.URL.Scheme)
		}
		return nil
	}}
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// public says whether ip is an address on the public internet.
func public(ip netip.Addr) bool {
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || cgnat.Contains(ip))
}

// unwrapURL drops url.Error's "Get \"…\":" prefix, which repeats the URL.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
