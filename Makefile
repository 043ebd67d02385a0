# agentutils — build, test and maintenance targets.
# `make test` is what CI runs (.ci/run); it needs only Go.

PREFIX  ?= /usr/local
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/agentutils/agentutils/internal/app.Version=$(VERSION)
# urfave_cli_no_docs leaves urfave/cli's markdown and man renderers (and the
# blackfriday and md2man packages they pull in) out of the binaries: the man
# pages are our own roff (internal/app/man.go). ~0.3 MB less mapped per
# process, and no markdown parser set up at every start.
TAGS    := urfave_cli_no_docs
CMDS    := $(notdir $(wildcard cmd/agent cmd/agent-*))

.PHONY: all build test test-short vet bench interop demo try shots man man-check lint install fuzz clean update gopls

all: build

# Static binaries (CGO_ENABLED=0: Go's own DNS resolver and user lookup):
# nothing here needs libc, and not mapping it saves each process ~1.5 MB of
# RSS and the dynamic loader's start-up.
build:
	@mkdir -p bin
	CGO_ENABLED=0 $(GO) build -trimpath -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o bin/ ./cmd/...

vet:
	$(GO) vet ./...

# make lint (gofmt, go vet, staticcheck, deadcode, cmd/ function size) + the
# race-checked unit tests + the testscript suites (they run inside `go test`:
# each cmd/agent-*/ and the top-level pipeline suite build the binaries once)
# + deploy/job.yaml against Kubernetes' Job validation (scripts/check-deploy).
test: lint man-check gopls
	$(GO) test -race -count=1 -timeout 40m ./...
	scripts/check-deploy

# gopls, for the lsp tool's tests (internal/lsp, cmd/agent-chat's lsp.txtar): installed from the
# Go module proxy into .tools/bin, which they look in; when that fails they skip with a notice.
GOPLS_VERSION := v0.23.0
gopls: .tools/bin/gopls
.tools/bin/gopls:
	@mkdir -p .tools/bin
	@GOBIN=$(CURDIR)/.tools/bin $(GO) install golang.org/x/tools/gopls@$(GOPLS_VERSION) || \
	 echo "make: gopls $(GOPLS_VERSION) not installed: the lsp tool's tests with gopls will be skipped"

test-short:
	$(GO) test -short ./...

# Numbers against the peers; never part of `make test`.
bench: build
	@scripts/bench

# Compatibility checks against real peers (ripgrep, commitlint, MCP servers, pi files); skipped when absent.
interop: build
	@scripts/interop

demo: build
	@scripts/demo

# The interactive agent without a key: the fake provider as the model, a scratch home.
try: build
	@PATH="$(CURDIR)/bin:$(CURDIR)/.tools/bin:$$PATH" $(GO) run ./scripts/try

# The screenshots of agent in docs/: a real terminal (tmux), the fake provider, headless Chromium.
shots: build
	@PATH="$(CURDIR)/bin:$$PATH" $(GO) run ./scripts/termshot -out docs

# Regenerate the committed man pages from the CLI definitions.
man: build
	@for c in $(CMDS); do bin/$$c --man > man/$$c.1; done
	@echo "man pages written to man/"

# Fail when a committed man page is stale.
man-check:
	@mkdir -p .man-check && $(GO) build -tags '$(TAGS)' -o .man-check/ ./cmd/... && \
	 for c in $(CMDS); do .man-check/$$c --man | cmp -s - man/$$c.1 || { echo "man/$$c.1 is stale: run 'make man'"; rm -rf .man-check; exit 1; }; \
	  .man-check/$$c --check-cli >/dev/null || { rm -rf .man-check; exit 1; }; done; \
	 rm -rf .man-check

# gofmt, go vet, staticcheck (staticcheck.conf files say which checks a
# directory leaves out, and why), deadcode (functions no binary reaches;
# internal/fakellm is reached from scripts/fakeprovider, internal/testbin
# from scripts/runscript, app.CheckCLI from every binary's --check-cli,
# which man-check runs; nothing is filtered), and the size of cmd/ functions (thin shells: at most 80 lines and
# cyclomatic complexity 30). The tools are pinned and fetched by `go run`.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
DEADCODE    ?= $(GO) run golang.org/x/tools/cmd/deadcode@v0.39.0
# shellcheck (warnings and errors) over every shell script: the Debian package when it is
# installed. There is no Go port to fetch through the module proxy, so a machine with only Go
# skips it with a notice.
SHELL_SCRIPTS = $(shell grep -lE '^\#!.*[/ ](ba)?sh$$' scripts/* deploy/entrypoint 2>/dev/null)
lint: vet
	@if command -v shellcheck >/dev/null 2>&1; then shellcheck -S warning $(SHELL_SCRIPTS); \
	 else echo "lint: shellcheck not installed (apt-get install shellcheck): $(words $(SHELL_SCRIPTS)) shell scripts not checked"; fi
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(STATICCHECK) ./...
	@$(DEADCODE) ./... > .deadcode.out || { cat .deadcode.out; rm -f .deadcode.out; echo "deadcode did not run"; exit 1; }; \
	 if [ -s .deadcode.out ]; then cat .deadcode.out; rm -f .deadcode.out; echo "deadcode: unreachable functions (delete them or use them)"; exit 1; fi; rm -f .deadcode.out
	$(GO) run ./scripts/funcsize -lines 80 -over 30 cmd

fuzz:
	@scripts/fuzz

# The binaries, the interactive front-end (bin/agent when built, else
# scripts/agent), the man pages, and the completion scripts for bash, zsh
# and fish in the directories those shells load from.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(addprefix bin/,$(CMDS)) $(DESTDIR)$(PREFIX)/bin/
	if [ -x bin/agent ]; then install -m 0755 bin/agent $(DESTDIR)$(PREFIX)/bin/agent; \
	else install -m 0755 scripts/agent $(DESTDIR)$(PREFIX)/bin/agent; fi
	install -m 0644 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(wildcard man/*.7) $(DESTDIR)$(PREFIX)/share/man/man7/
	@for c in $(CMDS); do \
	  bin/$$c --generate-completion bash > $(DESTDIR)$(BASHCOMPDIR)/$$c && \
	  bin/$$c --generate-completion zsh > $(DESTDIR)$(ZSHCOMPDIR)/_$$c && \
	  bin/$$c --generate-completion fish > $(DESTDIR)$(FISHCOMPDIR)/$$c.fish || exit 1; \
	done
	@echo "installed in $(DESTDIR)$(PREFIX): bin, man pages, bash/zsh/fish completions"

update:
	UPDATE_SCRIPTS=1 $(GO) test ./... -run 'Script|Pipeline' -args -update

clean:
	rm -rf bin .man-check .tools
