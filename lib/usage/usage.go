// Package usage totals the token usage and cost of agents' sessions — pi's
// and oh-my-pi's, Claude Code's, Codex's, Gemini CLI's and opencode's
// (converted by lib/transcript) and agentutils' own — by day, month, model
// or project, as ccusage does for Claude Code.
package usage

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/session"
)

// Entry is one API response: one assistant message of a session.
type Entry struct {
	Agent      string    `json:"agent"`
	Project    string    `json:"project"`
	Provider   string    `json:"provider"`
	Model      string    `json:"model"`
	Key        string    `json:"key,omitempty"` // the response id: the same response read twice counts once
	Time       time.Time `json:"time"`
	Input      int64     `json:"input"`
	Output     int64     `json:"output"`
	CacheRead  int64     `json:"cacheRead"`
	CacheWrite int64     `json:"cacheWrite"`
	Cost       float64   `json:"cost"` // as the transcript gives it; 0 when it gives none
}

// FromEntries reads the assistant messages of session entries (pi session
// v3 lines, as lib/session reads them or lib/transcript converts them).
// Lines that are not assistant messages are ignored.
func FromEntries(agent, project string, entries [][]byte) []Entry {
	var out []Entry
	var v session.View
	for _, raw := range entries {
		if session.DecodeInto(&v, raw) != nil || v.Type != "message" {
			continue
		}
		mv, _ := v.Get("message")
		m, ok := session.ParseMsg(mv)
		if !ok || m.Role != "assistant" {
			continue
		}
		u, ok := session.UsageOf(m.Usage)
		if !ok {
			continue
		}
		if u.Input+u.Output+u.CacheRead+u.CacheWrite == 0 && u.Cost == 0 {
			continue // no usage recorded (an aborted or synthetic message)
		}
		t := time.UnixMilli(m.Time).UTC()
		if m.Time == 0 {
			t, _ = time.Parse(time.RFC3339Nano, v.Timestamp)
		}
		key := ""
		if m.ResponseID != "" {
			key = m.Provider + "/" + m.ResponseID
		}
		out = append(out, Entry{Agent: agent, Project: project, Provider: m.Provider, Model: m.Model, Key: key, Time: t,
			Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Cost: u.Cost})
	}
	return out
}

// Options shape a report.
type Options struct {
	By    string         // day (default), month, model or project
	Since string         // YYYY-MM-DD, inclusive; "" for no bound
	Until string         // YYYY-MM-DD, inclusive; "" for no bound
	Loc   *time.Location // the days' time zone (nil: UTC)
	// Price is the catalog's model for a response without a cost of its
	// own; nil or false leaves it unpriced (cost 0, named in Unpriced).
	Price func(provider, model string) (llm.Model, bool)
}

// Row is the totals of one group.
type Row struct {
	Key         string   `json:"key"`
	Input       int64    `json:"input"`
	Output      int64    `json:"output"`
	CacheRead   int64    `json:"cacheRead"`
	CacheWrite  int64    `json:"cacheWrite"`
	TotalTokens int64    `json:"totalTokens"`
	Cost        float64  `json:"cost"`
	Responses   int      `json:"responses"`
	Agents      []string `json:"agents"`
	Models      []string `json:"models"`
}

// Report is the totals by group, oldest day or largest cost first.
type Report struct {
	By         string   `json:"by"`
	Rows       []Row    `json:"rows"`
	Total      Row      `json:"total"`
	Duplicates int      `json:"duplicates"` // responses read more than once, counted once
	Unpriced   []string `json:"unpriced"`   // models without a cost in the transcript nor in the catalog
}

var day = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Aggregate totals entries. The same response (Key) read twice — Claude
// Code copies earlier messages into a resumed session's file — counts once,
// the first time it is read.
func Aggregate(entries []Entry, opt Options) (Report, error) {
	by := opt.By
	if by == "" {
		by = "day"
	}
	if by != "day" && by != "month" && by != "model" && by != "project" {
		return Report{}, fmt.Errorf("--by %q: want day, month, model or project", by)
	}
	for _, d := range []string{opt.Since, opt.Until} {
		if d != "" && (!day.MatchString(d) || !validDate(d)) {
			return Report{}, fmt.Errorf("date %q: want YYYY-MM-DD", d)
		}
	}
	loc := opt.Loc
	if loc == nil {
		loc = time.UTC
	}
	rep := Report{By: by, Unpriced: []string{}}
	seen := map[string]bool{}
	unpriced := map[string]bool{}
	groups := map[string]*Row{}
	sets := map[string]map[string]bool{}
	add := func(r *Row, e Entry, cost float64) {
		r.Input += e.Input
		r.Output += e.Output
		r.CacheRead += e.CacheRead
		r.CacheWrite += e.CacheWrite
		r.TotalTokens += e.Input + e.Output + e.CacheRead + e.CacheWrite
		r.Cost += cost
		r.Responses++
		for _, s := range []string{"a" + e.Agent, "m" + e.Model} {
			if sets[r.Key] == nil {
				sets[r.Key] = map[string]bool{}
			}
			if !sets[r.Key][s] {
				sets[r.Key][s] = true
				if s[0] == 'a' {
					r.Agents = append(r.Agents, s[1:])
				} else {
					r.Models = append(r.Models, s[1:])
				}
			}
		}
	}
	rep.Total.Key = "\x00total"
	for _, e := range entries {
		if e.Key != "" {
			if seen[e.Key] {
				rep.Duplicates++
				continue
			}
			seen[e.Key] = true
		}
		d := e.Time.In(loc).Format("2006-01-02")
		if (opt.Since != "" && d < opt.Since) || (opt.Until != "" && d > opt.Until) {
			continue
		}
		cost := e.Cost
		if cost == 0 && e.Input+e.Output+e.CacheRead+e.CacheWrite > 0 {
			m, ok := llm.Model{}, false
			if opt.Price != nil {
				m, ok = opt.Price(e.Provider, e.Model)
			}
			if ok {
				cost = m.CostOf(llm.Usage{Input: int(e.Input), Output: int(e.Output), CacheRead: int(e.CacheRead), CacheWrite: int(e.CacheWrite)}).Total
			} else if !unpriced[e.Model] {
				unpriced[e.Model] = true
				rep.Unpriced = append(rep.Unpriced, e.Model)
			}
		}
		key := d
		switch by {
		case "month":
			key = d[:7]
		case "model":
			key = e.Model
		case "project":
			key = e.Project
		}
		g := groups[key]
		if g == nil {
			g = &Row{Key: key}
			groups[key] = g
		}
		add(g, e, cost)
		add(&rep.Total, e, cost)
	}
	rep.Total.Key = "total"
	if rep.Total.Agents == nil {
		rep.Total.Agents, rep.Total.Models = []string{}, []string{}
	}
	rep.Total.Cost = llm.RoundCost(rep.Total.Cost)
	for _, g := range groups {
		g.Cost = llm.RoundCost(g.Cost)
		sort.Strings(g.Agents)
		sort.Strings(g.Models)
		rep.Rows = append(rep.Rows, *g)
	}
	sort.Strings(rep.Total.Agents)
	sort.Strings(rep.Total.Models)
	sort.Strings(rep.Unpriced)
	sort.Slice(rep.Rows, func(i, j int) bool {
		a, b := rep.Rows[i], rep.Rows[j]
		if (by == "model" || by == "project") && a.Cost != b.Cost {
			return a.Cost > b.Cost
		}
		return a.Key < b.Key
	})
	if rep.Rows == nil {
		rep.Rows = []Row{}
	}
	return rep, nil
}

func validDate(d string) bool {
	_, err := time.Parse("2006-01-02", d)
	return err == nil
}

var dated = regexp.MustCompile(`-\d{8}$`)

// PriceFrom looks a response's model up in a catalog's models by exact id
// (the provider's first, then any provider's), without a -YYYYMMDD suffix
// when the dated id is not there. No near names: a guess would misprice.
func PriceFrom(models []llm.Model) func(provider, model string) (llm.Model, bool) {
	return func(provider, model string) (llm.Model, bool) {
		for _, id := range []string{model, dated.ReplaceAllString(model, "")} {
			id = strings.ToLower(id)
			var any *llm.Model
			for i, m := range models {
				if strings.ToLower(m.ID) != id {
					continue
				}
				if m.Provider == provider {
					return m, true
				}
				if any == nil {
					any = &models[i]
				}
			}
			if any != nil {
				return *any, true
			}
		}
		return llm.Model{}, false
	}
}

// Thousands writes a count with commas between groups of three digits.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[0] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}
