#!/usr/bin/env bash
# Builds the six Paygate images (auth, gateway, callbacks, aggregator, sandbox, console) with no
# registry in reach: every image is FROM scratch and holds only what this script prepares on the
# host (`make images`).
#
#   1. A container engine: podman, else buildah, else a docker that answers. When none is there,
#      Debian's podman, buildah and runc are installed with apt-get (as root or with sudo -n).
#   2. The Go binaries, static (CGO_ENABLED=0): the five services and the console's server
#      (deploy/images/console).
#   3. The console: npm run build (make build-console), unless PAYGATE_IMAGES_CONSOLE_BUILT=1 says
#      shell/dist and remotes/*/dist are already built.
#   4. The build context, under .data/images/context: rootfs/ (passwd and group with user 65532,
#      the host's CA bundle, time zone data, /tmp, /var/lib/paygate/files), bin/, console/.
#   5. The images, from deploy/docker/service.Dockerfile and console.Dockerfile, tagged
#      paygate/<name>:$PAYGATE_IMAGES_TAG (default dev); then their names and sizes.
#
# Environment: PAYGATE_IMAGES_ENGINE (podman, buildah or docker) picks the engine;
# PAYGATE_IMAGES_TAG the tag; PAYGATE_IMAGES_ONLY a space-separated subset of the images.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
CTX="$ROOT/.data/images/context"
TAG="${PAYGATE_IMAGES_TAG:-dev}"
SERVICES=(auth gateway callbacks aggregator sandbox)
read -r -a IMAGES <<<"${PAYGATE_IMAGES_ONLY:-${SERVICES[*]} console}"
# The user every image runs as (k8s/base runs the services as 65532 too).
UID_GID=65532

log() { printf 'images: %s\n' "$*"; }
die() { printf 'images: error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else die "need root to run: $* (install it yourself)"
  fi
}

apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found: install $* yourself"
  log "installing Debian packages: $*"
  as_root apt-get update -qq >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# pick_engine prints the engine to build with, installing podman and buildah when there is none.
pick_engine() {
  local e="${PAYGATE_IMAGES_ENGINE:-}"
  if [[ -n "$e" ]]; then
    command -v "$e" >/dev/null || die "PAYGATE_IMAGES_ENGINE=$e is not installed"
    printf '%s\n' "$e"
    return
  fi
  for e in podman buildah; do
    command -v "$e" >/dev/null && { printf '%s\n' "$e"; return; }
  done
  # A docker client alone is not enough: it needs a daemon that answers.
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    printf 'docker\n'
    return
  fi
  apt_install podman buildah runc >&2
  command -v podman >/dev/null || die "podman is still missing after apt-get install"
  printf 'podman\n'
}

# build_image ENGINE NAME DOCKERFILE [BUILD-ARGS...]
build_image() {
  local engine="$1" name="$2" file="$3"
  shift 3
  case "$engine" in
    buildah) buildah bud --quiet --isolation chroot -f "$file" "$@" -t "paygate/$name:$TAG" "$CTX" >/dev/null ;;
    *) "$engine" build --quiet -f "$file" "$@" -t "paygate/$name:$TAG" "$CTX" >/dev/null ;;
  esac
}

main() {
  local start=$SECONDS engine
  engine="$(pick_engine)"
  log "engine: $engine ($("$engine" --version 2>/dev/null | head -n1))"

  [[ -r /etc/ssl/certs/ca-certificates.crt ]] || apt_install ca-certificates
  [[ -d /usr/share/zoneinfo/Etc ]] || apt_install tzdata
  command -v go >/dev/null || die "go not found (the Makefile puts /usr/local/go/bin on PATH)"

  rm -rf "$CTX"
  mkdir -p "$CTX/bin" "$CTX/rootfs/etc/ssl/certs" "$CTX/rootfs/usr/share" "$CTX/rootfs/tmp" \
    "$CTX/rootfs/var/lib/paygate/files"

  # The root filesystem every image shares. The passwd entry gives the numeric user a name and a
  # home for libraries that ask; nobody can log in.
  printf 'root:x:0:0:root:/root:/sbin/nologin\npaygate:x:%d:%d:paygate:/nonexistent:/sbin/nologin\n' \
    "$UID_GID" "$UID_GID" >"$CTX/rootfs/etc/passwd"
  printf 'root:x:0:\npaygate:x:%d:\n' "$UID_GID" >"$CTX/rootfs/etc/group"
  cp /etc/ssl/certs/ca-certificates.crt "$CTX/rootfs/etc/ssl/certs/"
  # Time zone data without the posix/ and right/ copies (the same zones again, 2 MB more).
  cp -rL /usr/share/zoneinfo "$CTX/rootfs/usr/share/"
  rm -rf "$CTX/rootfs/usr/share/zoneinfo/posix" "$CTX/rootfs/usr/share/zoneinfo/right"
  chmod 1777 "$CTX/rootfs/tmp"
  chmod -R a+rX "$CTX/rootfs"

  local want_console=0 name
  for name in "${IMAGES[@]}"; do [[ "$name" == console ]] && want_console=1; done

  log "go build (static): ${IMAGES[*]}"
  local pkgs=()
  for name in "${IMAGES[@]}"; do
    case "$name" in
      console) pkgs+=(./deploy/images/console) ;;
      auth | gateway | callbacks | aggregator | sandbox) pkgs+=("./services/$name") ;;
      *) die "unknown image $name (known: ${SERVICES[*]} console)" ;;
    esac
  done
  CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$CTX/bin/" "${pkgs[@]}"

  if ((want_console)); then
    if [[ "${PAYGATE_IMAGES_CONSOLE_BUILT:-}" != 1 ]]; then
      log "npm run build (the shell and the remotes)"
      make --no-print-directory build-console >"$ROOT/.data/images/console-build.log" 2>&1 ||
        { tail -n 40 "$ROOT/.data/images/console-build.log" >&2; die "the console build failed (log: .data/images/console-build.log)"; }
    fi
    [[ -f shell/dist/index.html ]] || die "shell/dist/index.html is missing: run make build-console"
    mkdir -p "$CTX/console/remotes"
    cp -r shell/dist/. "$CTX/console/"
    local d
    for d in remotes/*/dist; do
      [[ -d "$d" ]] && cp -r "$d" "$CTX/console/remotes/$(basename "$(dirname "$d")")"
    done
    cp deploy/docker/console/config.json "$CTX/console/config.json"
    chmod -R a+rX "$CTX/console"
  fi

  for name in "${IMAGES[@]}"; do
    log "building paygate/$name:$TAG"
    if [[ "$name" == console ]]; then
      build_image "$engine" console deploy/docker/console.Dockerfile
    else
      build_image "$engine" "$name" deploy/docker/service.Dockerfile --build-arg "SERVICE=$name"
    fi
  done

  log "built in $((SECONDS - start))s:"
  for name in "${IMAGES[@]}"; do
    case "$engine" in
      docker) docker image ls --format '  {{.Repository}}:{{.Tag}}  {{.Size}}' "paygate/$name:$TAG" ;;
      podman) podman images --format '  {{.Repository}}:{{.Tag}}  {{.Size}}' --filter "reference=paygate/$name:$TAG" ;;
      buildah) buildah images --format '  {{.Name}}:{{.Tag}}  {{.Size}}' --filter "reference=paygate/$name:$TAG" ;;
    esac
  done
}

main "$@"
