// Package ignore decides which walked entries are searched, as ripgrep's
// ignore and globset crates do: Filter applies -g/--iglob overrides,
// ignore files (.gitignore, .ignore, .rgignore, the global excludes file,
// matched as git does and read through an IgnoreFS), -t/-T file types
// and hidden names. It imports nothing of lib/grep.
package ignore
