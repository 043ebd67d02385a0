package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/config"
)

func TestPrintConfig(t *testing.T) {
	cfg, err := config.Merge(config.Input{
		User:  &config.File{Name: "/h/config.toml", Data: []byte("[edit]\nmode = \"hashline\"\n")},
		Flags: map[string][]string{"model": {"opus"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var table, lines bytes.Buffer
	printConfig(&table, cfg, true)
	printConfig(&lines, cfg, false)
	wantTable := `KEY                      VALUE                                    SOURCE   WHERE
modelRoles.default       opus                                     flag     --model
modelRoles.commit        -                                        default  
modelRoles.fast          -                                        default  
enabledModels            -                                        default  
defaultThinkingLevel     -                                        default  
toolsCmd                 agent-tool serve                         default  
edit.mode                hashline                                 user     /h/config.toml:2
tools.memory             false                                    default  
web_search.mcp           -                                        default  
shell.env                -                                        default  
permissions.defaultMode  -                                        default  
permissions.allow        -                                        default  
permissions.deny         -                                        default  
task.hosts               -                                        default  
approvalMode             ask                                      default  
statusLine               -                                        default  
sandbox.mode             workspace-write                          default  
sandbox.writable         -                                        default  
sandbox.net              false                                    default  
sandbox.hide             ~/.ssh, ~/.aws, ~/.gnupg, … (14 in all)  default  
`
	if d := cmp.Diff(wantTable, table.String()); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}
	wantLines := `{"key":"modelRoles.default","value":"opus","source":"flag","where":"--model"}
{"key":"modelRoles.commit","value":null,"source":"default"}
{"key":"modelRoles.fast","value":null,"source":"default"}
{"key":"enabledModels","value":[],"source":"default"}
{"key":"defaultThinkingLevel","value":null,"source":"default"}
{"key":"toolsCmd","value":["agent-tool serve"],"source":"default"}
{"key":"edit.mode","value":"hashline","source":"user","where":"/h/config.toml:2"}
{"key":"tools.memory","value":"false","source":"default"}
{"key":"web_search.mcp","value":null,"source":"default"}
{"key":"shell.env","value":[],"source":"default"}
{"key":"permissions.defaultMode","value":null,"source":"default"}
{"key":"permissions.allow","value":[],"source":"default"}
{"key":"permissions.deny","value":[],"source":"default"}
{"key":"task.hosts","value":[],"source":"default"}
{"key":"approvalMode","value":"ask","source":"default"}
{"key":"statusLine","value":null,"source":"default"}
{"key":"sandbox.mode","value":"workspace-write","source":"default"}
{"key":"sandbox.writable","value":[],"source":"default"}
{"key":"sandbox.net","value":"false","source":"default"}
{"key":"sandbox.hide","value":["~/.ssh","~/.aws","~/.gnupg","~/.netrc","~/.git-credentials","~/.config/gh","~/.docker/config.json","~/.kube","~/.config/gcloud","~/.azure","~/.pypirc","~/.npmrc","{data}/credentials.json","{config}/mcp.json"],"source":"default"}
`
	if d := cmp.Diff(wantLines, lines.String()); d != "" {
		t.Errorf("JSON lines (-want +got):\n%s", d)
	}
}
