# The console: the shell and every remote (npm run build), served by a small static Go server
# (deploy/images/console) on 8080 as user 65532. FROM scratch, like the services: nothing is
# pulled. Its build context is the folder deploy/images/build.sh prepares (make images):
#   rootfs/       /etc/passwd, /etc/group, CA bundle, time zone data, /tmp (see service.Dockerfile)
#   bin/console   the static server (CGO_ENABLED=0)
#   console/      the shell's build at the root, each remote's under remotes/<name>/, and the
#                 default config.json (deploy/docker/console/config.json: the local ports)
# Then, with any engine:
#   podman build -f deploy/docker/console.Dockerfile -t paygate/console .data/images/context
# A deployment mounts its own config.json over /srv/console/config.json (or names another file
# with PAYGATE_CONSOLE_CONFIG); the Content-Security-Policy is built from it at start. The server
# writes nothing, so the root filesystem can be read-only.
FROM scratch
COPY rootfs/ /
COPY bin/console /usr/local/bin/paygate-console
COPY console/ /srv/console/
ENV PAYGATE_HTTP_ADDR=:8080 \
    PAYGATE_CONSOLE_DIR=/srv/console
USER 65532:65532
EXPOSE 8080
LABEL org.opencontainers.image.title="paygate-console" \
      org.opencontainers.image.description="Paygate console (shell and remotes)" \
      org.opencontainers.image.source="deploy/docker/console.Dockerfile"
ENTRYPOINT ["/usr/local/bin/paygate-console"]
