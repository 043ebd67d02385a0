// Package printer writes search results (lib/grep/search) as rg 13
// prints them, as ripgrep's grep-printer crate does: the standard and
// --vimgrep lines, the -c/-l summaries, --json's records, and the agent
// tool's text, with colours, -r, -o, -M and the output budgets. Its
// LineFormat is the search's Sink, so the common search prints its
// matching lines as it finds them.
package printer
