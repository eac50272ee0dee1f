#!/usr/bin/env bash
# The end-to-end suite drives the CLI in a real terminal through tmux, pipes its JSON
# through jq, pages through less, reads the man page with man and runs the commands of
# --dry-run=curl with curl (Debian packages; `man` is man-db's). Installs what is missing
# when we may (root with apt-get); otherwise says what to do. zsh and fish run the
# completion scripts in their own shells: installed when we may, and those tests are
# skipped where they are missing.
set -euo pipefail
declare -A package=([tmux]=tmux [jq]=jq [less]=less [man]=man-db [curl]=curl)
missing=()
for tool in tmux jq less man curl; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${package[$tool]}")
done
may_install=false
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then may_install=true; fi
if $may_install; then
  for shell in zsh fish; do
    command -v "$shell" >/dev/null 2>&1 || missing+=("$shell")
  done
fi
if [ "${#missing[@]}" -eq 0 ]; then exit 0; fi
if $may_install; then
  echo "installing ${missing[*]} (end-to-end tests need them)" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "the end-to-end tests need ${missing[*]}: install (e.g. sudo apt-get install ${missing[*]})" >&2
exit 1
