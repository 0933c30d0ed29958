#!/usr/bin/env bash
# What the end-to-end tests drive, installed from the machine's own registries:
# - Debian's Chromium (headless, for the Sheets sidebar and the VS Code workbench);
# - code-server (a real VS Code) from the npm registry, for the extension's end-to-end tests;
# - Debian's PostgreSQL (its binaries: the answer store's tests start clusters of their own with
#   initdb and pg_ctl in temporary folders, packages/bulk/test/postgres-cluster.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v rg >/dev/null || missing+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: apt-get install ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -f scripts/install-code-server.sh ]; then
  bash scripts/install-code-server.sh
fi
