#!/usr/bin/env bash
# The end-to-end suite drives the CLI in a real terminal through tmux (Debian package).
# Installs it when missing and we may (root with apt-get); otherwise says what to do.
set -euo pipefail
if command -v tmux >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing tmux (terminal tests need it)" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
  exit 0
fi
echo "tmux is required by the terminal tests: install it (e.g. sudo apt-get install tmux)" >&2
exit 1
