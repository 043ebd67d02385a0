package grep

import (
	"path"
	"sort"
	"strings"
)

// Types is rg's table of common file types (a subset: the languages and
// formats a coding agent meets), name → globs.
var Types = map[string][]string{
	"c":          {"*.[chH]", "*.[chH].in", "*.cats"},
	"cpp":        {"*.[ChH]", "*.cc", "*.[ch]pp", "*.[ch]xx", "*.hh", "*.inl"},
	"cs":         {"*.cs"},
	"css":        {"*.css", "*.scss"},
	"docker":     {"*Dockerfile*"},
	"go":         {"*.go"},
	"h":          {"*.h", "*.hh", "*.hpp"},
	"html":       {"*.htm", "*.html", "*.ejs"},
	"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":         {"*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"},
	"json":       {"*.json", "composer.lock", "*.sarif"},
	"jsonl":      {"*.jsonl"},
	"kotlin":     {"*.kt", "*.kts"},
	"lua":        {"*.lua"},
	"make":       {"[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Gg][Nn][Uu]makefile.am", "[Mm]akefile.am", "*.mk", "*.mak"},
	"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
	"md":         {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
	"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
	"py":         {"*.py", "*.pyi"},
	"python":     {"*.py", "*.pyi"},
	"rb":         {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb"},
	"ruby":       {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb"},
	"rust":       {"*.rs"},
	"sh":         {"*.bash", "*.bashrc", ".bash_login", ".bash_logout", ".bash_profile", "*.sh", ".profile", ".zshrc", "*.zsh"},
	"sql":        {"*.sql", "*.psql"},
	"swift":      {"*.swift"},
	"toml":       {"*.toml", "Cargo.lock"},
	"ts":         {"*.ts", "*.tsx", "*.cts", "*.mts"},
	"typescript": {"*.ts", "*.tsx", "*.cts", "*.mts"},
	"txt":        {"*.txt"},
	"xml":        {"*.xml", "*.xml.dist", "*.dtd", "*.xsl", "*.xslt", "*.xsd", "*.xjb", "*.rng", "*.sch", "*.xhtml"},
	"yaml":       {"*.yaml", "*.yml"},
	"zig":        {"*.zig"},
}

// TypeList renders the table as --type-list prints it.
func TypeList() string {
	var names []string
	for n := range Types {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + ": " + strings.Join(Types[n], ", ") + "\n")
	}
	return b.String()
}

func typeMatch(name, t string) bool {
	for _, g := range Types[t] {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

func typesAllow(name string, o WalkOptions) bool {
	for _, t := range o.TypesNot {
		if typeMatch(name, t) {
			return false
		}
	}
	if len(o.Types) == 0 {
		return true
	}
	for _, t := range o.Types {
		if typeMatch(name, t) {
			return true
		}
	}
	return false
}
