// Command agent-render shows agents' output to people: the event stream
// styled for a terminal (markdown, highlighted code, tool calls and diffs)
// and sessions as one self-contained HTML page. It is the one program with
// goldmark and chroma linked in; agent-chat --render and agent-session
// export --html hand their work to it when it is installed.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
