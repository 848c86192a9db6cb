#!/bin/sh
# Starts nginx for the console after writing /tmp/nginx/csp.conf, the Content-Security-Policy of
# every response, from the config.json being served (the image's default or the one a deployment
# mounts): script-src allows the console's origin and the origins of remote entries config.json
# names, connect-src the console's origin and the service URLs it names. The rules are those of
# deploy/devstack/console.go (consoleCSP). Usage: console-entrypoint.sh [config.json [out.conf]]
# (with arguments it only writes the file, for a check; without, it then runs nginx).
set -eu

config="${1:-/usr/share/nginx/html/config.json}"
out="${2:-/tmp/nginx/csp.conf}"
[ -r "$config" ] || { echo "console-entrypoint: cannot read $config" >&2; exit 1; }
json="$(tr -d '\n\r' <"$config")"

# origins prints the scheme://host[:port] of each absolute http(s) URL on stdin, once each.
origins() { grep -o 'https\{0,1\}://[^/"?#[:space:]]*' | awk '!seen[$0]++'; }
# value prints the string value of a top-level key of config.json.
value() { printf '%s' "$json" | grep -o "\"$1\"[[:space:]]*:[[:space:]]*\"[^\"]*\"" | head -n 1 | sed 's/^.*:[[:space:]]*"//; s/"$//'; }

services="$(for k in authUrl gatewayUrl callbacksUrl aggregatorUrl; do value "$k"; echo; done | origins | tr '\n' ' ')"
remotes="$(printf '%s' "$json" | grep -o '"remotes"[[:space:]]*:[[:space:]]*{[^}]*}' | origins | tr '\n' ' ')"

csp="default-src 'self'; script-src 'self' ${remotes}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self' ${services}; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
csp="$(printf '%s' "$csp" | sed 's/ ;/;/g')"
case "$csp" in *'"'* | *'\'*) echo "console-entrypoint: $config holds a URL with a quote or backslash" >&2; exit 1 ;; esac

mkdir -p "$(dirname "$out")"
printf 'map $uri $console_csp {\n  default "%s";\n}\n' "$csp" >"$out"
[ "$#" -gt 0 ] && exit 0
exec nginx -e stderr -g 'daemon off;'
