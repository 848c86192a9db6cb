#!/usr/bin/env bash
# step.sh TITLE CMD [ARGS...] runs one step of `make test`: a header, the command, its duration.
# The step's exit status is the command's, so make stops at the first step that fails.
set -uo pipefail
title="$1"
shift
if [[ -t 1 ]]; then
  printf '\n\033[1m==> %s\033[0m\n' "$title"
else
  printf '\n==> %s\n' "$title"
fi
start=$SECONDS
"$@"
status=$?
elapsed=$((SECONDS - start))
if [[ $status -eq 0 ]]; then
  printf '<== %s: ok in %dm%02ds\n' "$title" $((elapsed / 60)) $((elapsed % 60))
else
  printf '<== %s: FAILED (exit %d) after %dm%02ds\n' "$title" "$status" $((elapsed / 60)) $((elapsed % 60)) >&2
fi
exit $status
