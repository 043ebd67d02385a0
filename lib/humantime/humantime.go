// Package humantime says how long ago something was, as people do: the one
// scale behind agent-session list's AGE column and the ls tool's
// "(3d ago)".
package humantime

import (
	"fmt"
	"time"
)

// Week is where agent-session list switches from "Nd ago" to a date.
const Week = 7 * 24 * time.Hour

// Ago is d as "just now", "Nm ago", "Nh ago", "Nd ago", "Nw ago" (from a
// week) or "Nmo ago" (from 30 days): the reference's ls tool's scale; its
// session list shows a date from a week on (Since).
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < Week:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dw ago", int(d.Hours()/24/7))
	}
	return fmt.Sprintf("%dmo ago", int(d.Hours()/24/30))
}

// Since is Ago of now-t under a week, else t's date (2006-01-02): the
// reference's session list.
func Since(now, t time.Time) string {
	if d := now.Sub(t); d < Week {
		return Ago(d)
	}
	return t.Format("2006-01-02")
}
