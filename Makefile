# Paygate — build, generate, run and test.
SHELL := /bin/bash
.DEFAULT_GOAL := help

GOBIN := $(CURDIR)/bin
export PATH := $(GOBIN):$(CURDIR)/node_modules/.bin:/usr/local/go/bin:$(PATH)

PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
GRPC_GATEWAY_VERSION       := v2.32.0

# The services `make build` compiles into bin/ and `make run` starts. The ports of each are in
# docs/contracts.md and deploy/devstack.
SERVICES := auth gateway callbacks aggregator sandbox

# The servers the Go tests use (docs/contracts.md); deploy/local/deps.sh starts them when they are
# not answering.
export PAYGATE_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
export PAYGATE_TEST_REDIS_URL    ?= redis://127.0.0.1:6379/15
export PAYGATE_TEST_NATS_URL     ?= nats://127.0.0.1:4222

STEP := deploy/local/step.sh

# The Go packages of the root module, listed by the shell when a recipe line runs. `./...` alone
# would also walk node_modules, where some npm packages ship Go files of their own.
GO_PKGS := $$(go list ./... | grep -v /node_modules/)

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

# `npm ci`: exactly the locked tree on every machine, and the lockfile is never rewritten (it lists
# every platform's optional builds, e.g. @bufbuild/buf-darwin-arm64, so it is complete everywhere).
node_modules: package.json package-lock.json $(wildcard shell/package.json shell/*/package.json remotes/*/package.json)
	npm ci --no-audit --no-fund
	@touch node_modules

.PHONY: npm
npm: node_modules ## install npm packages from the lockfile

.PHONY: tools
tools: ## install the pinned protoc plugins into bin/
	@mkdir -p $(GOBIN)
	GOBIN=$(GOBIN) go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(GOBIN) go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	GOBIN=$(GOBIN) go install github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway@$(GRPC_GATEWAY_VERSION)
	GOBIN=$(GOBIN) go install github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2@$(GRPC_GATEWAY_VERSION)

.PHONY: proto-deps
proto-deps: node_modules ## copy google/api annotations from google-proto-files (git-ignored)
	@mkdir -p third_party/proto/google/api
	@cp node_modules/google-proto-files/google/api/annotations.proto node_modules/google-proto-files/google/api/http.proto node_modules/google-proto-files/google/api/httpbody.proto third_party/proto/google/api/

.PHONY: generate
generate: tools proto-deps ## regenerate gen/ from proto/
	buf lint
	buf generate --path proto/paygate
	go mod tidy
	$(MAKE) --no-print-directory call-rules

# The packages whose tests hold each service's Rules table (services/internal/callrules): with
# PAYGATE_WRITE_CALL_RULES=1 their TestCallRulesFile writes the console's copy instead of comparing
# (callrules' own test writes requirements.gen.ts, from services/internal/access).
RULES_PKGS := $(addsuffix /internal/grpcapi,$(addprefix ./services/,auth gateway callbacks aggregator)) ./services/internal/callrules

.PHONY: call-rules
call-rules: ## write the console's copy of the services' rules (shell/sdk/src/call-rules/*.gen.ts)
	PAYGATE_WRITE_CALL_RULES=1 go test -count=1 -run '^TestCallRulesFile$$' $(RULES_PKGS)

.PHONY: proto-check
proto-check: generate ## fail when gen/ drifts from proto/ or the contracts break
	@git diff --exit-code -- gen/ || { echo 'gen/ is out of date: run make generate and commit'; exit 1; }
	@test -z "$$(git status --porcelain -- gen/)" || { git status --porcelain -- gen/; echo 'gen/ has files not committed: run make generate and commit'; exit 1; }
	@# The previous commit's module is rebuilt from git plus today's git-ignored google/api files
	@# (against '.git#ref=HEAD~1' alone it would lack them and fail to compile).
	@if git rev-parse -q --verify HEAD~1 >/dev/null && git cat-file -e HEAD~1:buf.yaml 2>/dev/null; then \
	  prev="$$(mktemp -d)" && trap 'rm -rf "$$prev"' EXIT && \
	  git archive HEAD~1 buf.yaml proto | tar -x -C "$$prev" && \
	  mkdir -p "$$prev/third_party" && cp -r third_party/proto "$$prev/third_party/" && \
	  buf breaking --against "$$prev" && echo 'buf breaking: no breaking change against HEAD~1'; \
	else echo 'buf breaking: no previous commit with protos, skipped'; fi

.PHONY: build
build: build-go build-console ## build the services and devstack into bin/, and the console (npm run build)

.PHONY: build-go
build-go: ## go build the services and the local stack launcher into bin/
	@mkdir -p $(GOBIN)
	go build -o $(GOBIN)/ $(addprefix ./services/,$(SERVICES)) ./deploy/devstack

.PHONY: build-console
build-console: node_modules ## build the shell and the remotes (shell/dist, remotes/*/dist)
	npm run build

.PHONY: run
run: build ## build, then run the whole suite with demo data; prints the console URL and the logins
	$(GOBIN)/devstack -services "$(SERVICES)"

.PHONY: deps
deps: ## make sure the Postgres, Redis and NATS the tests use are running (starts them if not)
	deploy/local/deps.sh

.PHONY: test
test: ## run every check CI runs, in order, stopping at the first failure
	@$(STEP) "deps: Postgres, Redis, NATS JetStream" deploy/local/deps.sh
	@$(STEP) "npm ci (when the lockfiles changed)" $(MAKE) --no-print-directory node_modules
	@$(STEP) "proto: buf lint, generate-and-diff, buf breaking" $(MAKE) --no-print-directory proto-check
	@$(STEP) "go vet" go vet $(GO_PKGS)
	@$(STEP) "go test -race" go test -race -count=1 $(GO_PKGS)
	@$(STEP) "npm run typecheck" npm run typecheck
	@$(STEP) "npm run lint" npm run lint
	@$(STEP) "npm test" npm test
	@$(STEP) "npm run build" npm run build
	@$(STEP) "k8s: build every overlay, validate against the API types" $(MAKE) --no-print-directory k8s-check
	@$(STEP) "e2e: Playwright against a fresh local stack" $(MAKE) --no-print-directory e2e
	@$(STEP) "compat: each service at this commit with the others at the previous release (N-1)" $(MAKE) --no-print-directory compat
	@$(STEP) "console: this commit's remotes on the previous release's host, and the reverse" $(MAKE) --no-print-directory console-compat
	@$(STEP) "images: build FROM scratch, run them, pay and see the callback (skips where containers cannot run)" $(MAKE) --no-print-directory images-ci
	@printf '\nmake test: every step passed\n'

# images-ci builds the images of this checkout (the console built by the step before) and runs the
# smoke test on them; smoke.sh skips, exit 0, where no container can run.
.PHONY: images-ci
images-ci:
	PAYGATE_IMAGES_CONSOLE_BUILT=1 deploy/images/build.sh
	deploy/images/smoke.sh

.PHONY: lint
lint: proto-deps ## the dependency policy (services/deps_test.go), go vet, buf lint, the type check and eslint
	go test -count=1 -run 'TestDependencyPolicy|TestLayerOf' ./services/
	go vet $(GO_PKGS)
	buf lint
	npm run typecheck
	npm run lint

.PHONY: e2e
e2e: build-go ## run the Playwright tests against a fresh local stack (needs the console built)
	PAYGATE_SERVICES="$(SERVICES)" deploy/local/e2e.sh

# compat runs the smoke flow four times, each time with one of auth, gateway, callbacks and
# aggregator built from this checkout and the other three from the previous release: the newest
# tag v* before HEAD, else HEAD~40 (docs/releases.md; PAYGATE_COMPAT_BASE picks another).
.PHONY: compat
compat: build-go ## N-1: each service at this commit against the others at the previous release (deploy/local/compat.sh)
	PAYGATE_COMPAT_NEW_BIN=$(GOBIN) deploy/local/compat.sh

# release-tag marks HEAD as a release, v<year>.<month>.<day> in UTC (v2026.12.05; a second one that
# day gets .2, .3…), an annotated tag; the next release's `make compat` tests against it.
.PHONY: release-tag
release-tag: ## tag HEAD as a release (vYYYY.MM.DD); push it with git push origin <tag>
	@test -z "$$(git status --porcelain --untracked-files=no)" || { echo 'release-tag: the working tree has uncommitted changes: commit them first' >&2; exit 1; }
	@existing="$$(git tag --points-at HEAD -l 'v*')"; \
	  test -z "$$existing" || { echo "release-tag: HEAD is already the release $$existing" >&2; exit 1; }
	@tag="v$$(date -u +%Y.%m.%d)"; n=1; \
	  while git rev-parse -q --verify "refs/tags/$$tag" >/dev/null; do n=$$((n + 1)); tag="v$$(date -u +%Y.%m.%d).$$n"; done; \
	  git tag -a "$$tag" -m "Paygate $$tag" && \
	  echo "release-tag: HEAD ($$(git rev-parse --short HEAD)) is $$tag; publish it with: git push origin $$tag"
.PHONY: console-compat
console-compat: node_modules ## this commit's remotes on the previous release's host and the reverse, in Chromium (docs/console-releases.md)
	node shell/scripts/console-compat.mjs

.PHONY: k8s-check
k8s-check: ## build every kustomize overlay and validate each object strictly (offline)
	cd deploy/k8scheck && go test -count=1 ./...

OVERLAY ?= dev
.PHONY: k8s-build
k8s-build: ## print the manifests of one overlay: make k8s-build OVERLAY=prod
	@cd deploy/k8scheck && go run . $(CURDIR)/k8s/overlays/$(OVERLAY)

.PHONY: clean
clean: ## remove the built binaries, the console builds and the e2e leftovers (keeps .data's stack)
	rm -f $(addprefix $(GOBIN)/,$(SERVICES) devstack)
	rm -rf shell/dist remotes/*/dist .data/e2e.* .data/e2e-devstack.log .data/compat .data/console-compat

.PHONY: images
images: ## build the six images FROM scratch with podman or buildah (installed when missing)
	deploy/images/build.sh

.PHONY: images-test
images-test: ## run the built images against the local Postgres, Redis and NATS: sign in, pay, see the callback
	deploy/images/smoke.sh
