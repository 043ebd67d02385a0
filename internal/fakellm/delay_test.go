package fakellm

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A TLS server behind the delaying proxy answers through it, over HTTP/2,
// byte for byte.
func TestTLSBehindDelay(t *testing.T) {
	body := "event: message_start\ndata: {}\n\n"
	srv := NewTLS(Step{Body: []byte(body)})
	defer srv.Close()
	d, err := NewDelay(srv.Listener.Addr().String(), 2*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	client := srv.Client()
	tr := client.Transport.(*http.Transport)
	tr.TLSClientConfig = tr.TLSClientConfig.Clone()
	tr.TLSClientConfig.ServerName = "127.0.0.1"
	u := "https://" + d.Addr + "/v1/messages"
	resp, err := client.Post(u, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if string(got) != body || resp.ProtoMajor != 2 {
		t.Errorf("%s: %q, want %q over HTTP/2", resp.Proto, got, body)
	}
}
