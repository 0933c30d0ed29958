#!/usr/bin/env bash
# Sets up a fresh machine that has only Node 20 and npm:
#   bash scripts/setup.sh          pnpm at the pinned version, the workspace's packages, the built CLI
#   bash scripts/setup.sh --test   also what the tests drive: Debian's Chromium and PostgreSQL, and code-server
# Safe to run again: each install is skipped when already done; the CLI is built afresh (2 s).
set -euo pipefail
cd "$(dirname "$0")/.."

want_pnpm=$(node -p "require('./package.json').packageManager.split('@')[1]")
# corepack cannot verify pnpm's signature against this registry (see docs/platforms.md), so the
# pinned pnpm is installed with npm instead.
if [ "$(pnpm --version 2>/dev/null || true)" != "$want_pnpm" ]; then
  echo "setup: installing pnpm $want_pnpm"
  npm install --global --no-fund --no-audit "pnpm@$want_pnpm" >/dev/null
fi

pnpm install --frozen-lockfile
# The `enrich` command the READMEs run (node packages/cli/dist/enrich.mjs): the bundle starts in about
# 0.1 s, where bin/enrich.mjs compiles the TypeScript sources through tsx on every start (0.25 s and up).
pnpm --filter @enrich/cli build

if [ "${1:-}" = "--test" ]; then
  bash scripts/install-test-tools.sh
fi
