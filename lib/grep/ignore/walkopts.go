package ignore

// WalkOptions choose the files to search, with rg's meanings.
type WalkOptions struct {
	Hidden      bool // --hidden
	NoIgnore    bool // --no-ignore: no ignore files at all
	NoIgnoreVCS bool // --no-ignore-vcs: no .gitignore / .git/info/exclude / core.excludesFile
	NoIgnoreDot bool // --no-ignore-dot: no .ignore (.rgignore still counts, as in rg)
	// --no-ignore-parent (no ignore files above the root), --no-ignore-global
	// (no core.excludesFile), --no-ignore-exclude (no .git/info/exclude),
	// --no-require-git (git's ignore files count outside a repository too)
	NoIgnoreParent, NoIgnoreGlobal, NoIgnoreExclude, NoRequireGit bool
	// IgnoreFiles (--ignore-file) rank below every other ignore file, the
	// later one first; their patterns are relative to Cwd, and --no-ignore
	// does not turn them off (NoIgnoreFiles does), as in rg.
	IgnoreFiles    []string
	NoIgnoreFiles  bool
	OneFileSystem  bool                // --one-file-system: stay on the file system of the root
	Follow         bool                // -L
	MaxDepth       int                 // --max-depth, when MaxDepthSet (0: only the named paths)
	MaxDepthSet    bool                // --max-depth was given
	MaxFilesize    int64               // --max-filesize (0: none, unless MaxFilesizeSet)
	MaxFilesizeSet bool                // --max-filesize given (0: only empty files)
	Overrides      Overrides           // -g and --iglob (CompileGlobs), matched against the path as printed
	Types          []string            // -t
	TypesNot       []string            // -T
	TypeTable      map[string][]string // the type table after --type-add/--type-clear (nil: Types)
	GlobalIgnore   string              // core.excludesFile ("" for none)
	Cwd            string              // the working directory: relative roots are below it; absolute paths below it match globs relative to it
	// FilterGlobs (the agent tools' glob) only narrow the files that the
	// ignore rules let through: matched against the path below the root,
	// a glob without a slash at any depth.
	FilterGlobs []string
	SkipGitDir  bool // never enter .git (the agent tools; rg enters it under --hidden)
	// SortModified orders each directory's entries by modification time
	// (rg's --sort modified; descending with SortReverse), ties by name.
	SortModified, SortReverse bool
	// IgnoreCaseInsensitive matches ignore files case-insensitively
	// (--ignore-file-case-insensitive).
	IgnoreCaseInsensitive bool
	// OneThread words the walk's I/O errors as rg's one-thread walk does
	// (-j1, a sort, one CPU): "P: IO error for operation on P: ..."; rg's
	// parallel walk says "P: ..." alone.
	OneThread bool
}

// File is one file to search.
type File struct {
	Path  string // as printed (relative to the cwd when the root was)
	Abs   string
	Size  int64 // -1 when not known (no stat was needed)
	Named bool  // given on the command line rather than found by walking
}

// WalkError is a problem met while walking (an unreadable directory, a
// broken symlink, a loop): a warning, the walk goes on.
type WalkError struct {
	Path string
	Msg  string
}

func (e *WalkError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}
