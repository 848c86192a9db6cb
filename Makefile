# Paygate — build, generate, run and test.
SHELL := /bin/bash
.DEFAULT_GOAL := help

GOBIN := $(CURDIR)/bin
export PATH := $(GOBIN):$(CURDIR)/node_modules/.bin:/usr/local/go/bin:$(PATH)

PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
GRPC_GATEWAY_VERSION       := v2.32.0

SERVICES := auth gateway

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

node_modules: package.json package-lock.json
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
	@cp node_modules/google-proto-files/google/api/annotations.proto node_modules/google-proto-files/google/api/http.proto third_party/proto/google/api/

.PHONY: generate
generate: tools proto-deps ## regenerate gen/ from proto/
	buf lint
	buf generate --path proto/paygate
	go mod tidy

.PHONY: proto-check
proto-check: generate ## fail when gen/ drifts from proto/ or the contracts break
	@git diff --exit-code -- gen/ || { echo 'gen/ is out of date: run make generate and commit'; exit 1; }
	@test -z "$$(git status --porcelain -- gen/)" || { git status --porcelain -- gen/; echo 'gen/ has files not committed: run make generate and commit'; exit 1; }
	@if git rev-parse -q --verify HEAD~1 >/dev/null && git cat-file -e HEAD~1:buf.yaml 2>/dev/null; then \
	  buf breaking --against '.git#ref=HEAD~1' ; \
	else echo 'buf breaking: no previous commit with protos, skipped'; fi
