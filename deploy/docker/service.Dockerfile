# One image per Go service, chosen with a build argument; build from the repository root:
#   docker build -f deploy/docker/service.Dockerfile --build-arg SERVICE=auth -t paygate/auth .
# Written with care but not built here: the machines this project is developed on have no
# container engine (see README.md).

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
ARG SERVICE
RUN test -n "${SERVICE}" || { echo 'pass --build-arg SERVICE=<name> (auth, gateway, ...)'; exit 1; }
WORKDIR /src
# Modules first, so that a code change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/service ./services/${SERVICE}

# A slim Debian with no shell tools added; the service runs as an unprivileged user and needs no
# writable path but /tmp (mounted as an emptyDir in k8s/).
FROM debian:bookworm-slim
ARG SERVICE
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/service /usr/local/bin/paygate-service
USER 65532:65532
LABEL org.opencontainers.image.title="paygate-${SERVICE}" \
      org.opencontainers.image.description="Paygate ${SERVICE} service"
ENTRYPOINT ["/usr/local/bin/paygate-service"]
