#!/usr/bin/env python3
"""Writes testdata/commit/messages.jsonl: the commit-message corpus that
scripts/interop-commit lints with commitlint and agent-commit. Headers x
bodies x footers, plus hand-picked edge cases; deterministic output."""
import json, itertools

long_subject = "add " + "very " * 20 + "long subject"
headers = [
    "feat: add paging", "fix: handle empty input", "docs: update readme", "chore: bump deps",
    "refactor(parser): split lexer", "perf(db)!: drop index", "feat(api)!: remove v1 endpoints",
    "style: format", "test: add cases", "build: use go 1.26", "ci: cache modules", "revert: undo paging",
    "Feat: add paging", "FEAT: add paging", "feature: add paging", "foo: bar", ": no type",
    "feat-x: dashed type", "feat(scope) missing colon", "feat:no space", "feat:  double space",
    "feat(Scope): upper scope", "feat(a/b): two scopes", "feat(a,b): comma scopes", "feat(): empty scope",
    "fix: Capitalised subject", "fix: ALL CAPS SUBJECT", "fix: Start Case Subject", "fix: ends with stop.",
    "fix: ends with bang!", "fix: 2fa login", "fix: \"Quoted\" first", "fix: `Code` first",
    "fix: iOS build", "fix: über cache", "fix: Éclair", "fix: 日本語の件名", "feat: " + long_subject,
    "feat(" + "x" * 90 + "): long scope", "just a plain sentence", "Add paging", "fix:", "fix: ",
    " feat: leading space", "feat: trailing space ", "feat(api): add paging (#12)",
    "feat!: breaking", "fix(deps)!: upgrade", "docs(readme): fix typo", "fix(ui): Dark mode",
    "feat(i18n): add 中文", "chore(release): prepare", "feat(parser)(lexer): double scope",
    "fix(parser: unclosed scope", "fix(parser)): extra paren", "FIX(api): shouting",
    "Bad one.", "fix: wait...", "feat(x):", "Word.", "fix: x.y", "fix(a.b): c", "  both sides  ",
    "feat(a): b:", "fix: ǅemal title-case letter", "fix: ends with colon:",
]
bodies = [
    None,
    "Explain the change in one line.",
    "First paragraph.\n\nSecond paragraph with more words.",
    "- added a thing.\n- removed another thing.",
    "A line that is far too long for commitlint, because it keeps going and going past one hundred chars.",
    "See #123 for the background.",
    "Body line without blank before",  # marker: attach without blank line
    "Url https://example.com/" + "a" * 100,
]
footers = [
    None,
    "BREAKING CHANGE: the config file moved.",
    "BREAKING-CHANGE: flag removed",
    "Closes #12",
    "Signed-off-by: Jane Doe <jane@example.com>",
    "Refs: #1, #2",
    "Reviewed-by: Someone\nCloses #7\nFooter line that is much too long for the limit because it keeps on going well past a hundred characters",
]
msgs = []
for h, b, f in itertools.product(headers, bodies, footers):
    m = h
    if b is not None:
        if b.startswith("Body line without blank"):
            m += "\n" + b
        else:
            m += "\n\n" + b
    if f is not None:
        m += "\n\n" + f
    msgs.append(m)
extra = [
    "Merge branch 'main' into feature", "Merge pull request #12 from a/b", "Merge tag 'v1.0.0'",
    'Revert "feat: add paging"\n\nThis reverts commit abc.', "revert something", "Reapply \"x\"",
    "fixup! feat: add paging", "squash! fix: x", "amend! fix: y", "v1.2.3", "1.2.3", "chore(release): 1.2.3",
    "chore(release): v2.0.0-rc.1", "Merged in feature (pull request #1)", "Automatic merge from CI",
    "Merge remote-tracking branch 'origin/main'", "Auto-merged x into y",
    "feat: add x\nBREAKING CHANGE: no blank line", "feat: add x\n\nbody\nCloses #1",
    "fix: x\n\n\n\nbody after many blanks", "fix: x\n\nbody\n\nBREAKING CHANGE: a\ncontinued note",
    "feat: add x\n\nBREAKING CHANGE: " + "y" * 120, "fix: a\n\n#1 at start of body",
    "fix: a\n\nbody with C# language", "fix: a\n\nissue abc#5 mentioned",
    "docs: x\n\n* star bullet\n* another", "fix: tabs\tinside", "fix: emoji 🎉 party",
    "feat(api)!: x\n\nBREAKING CHANGE: y\n\nRefs: #3",
]
msgs += extra
with open("testdata/commit/messages.jsonl", "w") as out:
    for m in msgs:
        out.write(json.dumps({"message": m}, ensure_ascii=False) + "\n")
print(len(msgs))
