# One image per Go service (auth, gateway, callbacks, aggregator, sandbox), chosen with a build
# argument. The image is FROM scratch: no base image is pulled, so it builds with no registry in
# reach. Its build context is the folder deploy/images/build.sh prepares (make images), not the
# repository root:
#   rootfs/                      /etc/passwd and /etc/group (user 65532 "paygate"), the host's CA
#                                bundle (/etc/ssl/certs/ca-certificates.crt), time zone data
#                                (/usr/share/zoneinfo), an empty /tmp and /var/lib/paygate/files
#   bin/<service>                the service, a static Go binary (CGO_ENABLED=0)
# With that folder any engine builds it:
#   podman build -f deploy/docker/service.Dockerfile --build-arg SERVICE=auth -t paygate/auth .data/images/context
#   (docker build and buildah bud take the same arguments)
# At run time the root filesystem can be read-only: the services write only to /tmp (mount a
# tmpfs or an emptyDir there) and the gateway its export files to PAYGATE_FILES_DIR (a volume).
FROM scratch
ARG SERVICE
COPY rootfs/ /
# The gateway's export files; owned by the service's user so that a fresh volume mounted here is
# writable (the engines copy the ownership of the image's folder into a new named volume).
COPY --chown=65532:65532 rootfs/var/lib/paygate/ /var/lib/paygate/
COPY bin/${SERVICE} /usr/local/bin/paygate-service
ENV PAYGATE_FILES_DIR=/var/lib/paygate/files
USER 65532:65532
WORKDIR /tmp
LABEL org.opencontainers.image.title="paygate-${SERVICE}" \
      org.opencontainers.image.description="Paygate ${SERVICE} service" \
      org.opencontainers.image.source="deploy/docker/service.Dockerfile"
ENTRYPOINT ["/usr/local/bin/paygate-service"]
