# The console: the shell and every remote, built with npm and served by nginx on 8080 as a
# non-root user. Debian's nginx, for its brotli_static module (libnginx-mod-http-brotli-static):
# the build precompresses every text file with brotli and gzip. Build from the repository root:
#   docker build -f deploy/docker/console.Dockerfile -t paygate/console .
# /config.json defaults to the local ports; Kubernetes mounts its own (k8s/base/console.yaml).
# Written with care but not built here: no container engine on the development machines.

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund && npm run build
# The shell at the root, each remote under /remotes/<name>/ (as deploy/devstack serves them).
RUN mkdir -p /out/remotes && cp -r shell/dist/. /out/ \
    && for d in remotes/*/dist; do n="$(basename "$(dirname "$d")")"; cp -r "$d" "/out/remotes/$n"; done

FROM debian:bookworm-slim
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light libnginx-mod-http-brotli-static \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled /etc/nginx/modules-enabled
COPY deploy/docker/console/nginx.conf /etc/nginx/nginx.conf
COPY deploy/docker/console/console-entrypoint.sh /usr/local/bin/console-entrypoint.sh
COPY --from=build /out/ /usr/share/nginx/html/
COPY deploy/docker/console/config.json /usr/share/nginx/html/config.json
# The uid k8s/base/console.yaml runs as; it needs only to read the files and write /tmp.
USER 101:101
EXPOSE 8080
# Writes the Content-Security-Policy from the config.json being served, then runs nginx.
ENTRYPOINT ["/usr/local/bin/console-entrypoint.sh"]
