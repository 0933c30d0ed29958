#!/usr/bin/env bash
# Installs code-server (a real VS Code served to a browser) from the npm registry into the
# git-ignored .e2e/code-server, for the VS Code extension's end-to-end tests.
#   bash scripts/install-code-server.sh     (called by scripts/install-test-tools.sh)
# Prints the code-server binary's path. Safe to run again: it returns at once when the pinned
# version is already installed.
#
# Facts of this kind of machine (only the npm registry and Debian's packages are reachable):
# - 4.100.3 is the last code-server line that runs on Node 20 (later ones want Node 22 or 24).
# - Its native `kerberos` module builds against Debian's libkrb5-dev (install-test-tools.sh).
# - As root, its postinstall refuses to run unless npm_config_unsafe_perm=true, and a nested npx
#   would wait for a "y" unless npm_config_yes=true.
# - npm 11.19 runs no dependency install scripts unless allowed. code-server's postinstall runs
#   `npm install` inside its own lib/vscode and lib/vscode/extensions, whose package.json files we
#   do not control, to build VS Code's native modules (kerberos, node-pty, @parcel/watcher, ...);
#   so the allowance is given for this one install through the environment, where those nested
#   npm runs see it too.
# - @vscode/ripgrep's postinstall downloads rg from GitHub, which is not reachable. It skips the
#   download when its cached archive already sits in $TMPDIR/vscode-ripgrep-cache-<version>/, so
#   that archive is made here from Debian's ripgrep (/usr/bin/rg).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=4.100.3
RIPGREP_PACKAGE_VERSION=1.15.11
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
DIR=.e2e/code-server
BIN="$DIR/node_modules/.bin/code-server"
STAMP="$DIR/installed-$VERSION"
VSCODE="$DIR/node_modules/code-server/lib/vscode"

if [ -f "$STAMP" ] && [ -x "$BIN" ]; then
  echo "code-server $VERSION already installed: $BIN"
  exit 0
fi

RG=$(command -v rg || true)
if [ -z "$RG" ]; then
  echo "install-code-server: rg not found; install Debian's ripgrep first (scripts/install-test-tools.sh)" >&2
  exit 1
fi

tmp=${TMPDIR:-/tmp}
cache="$tmp/vscode-ripgrep-cache-$RIPGREP_PACKAGE_VERSION"
if [ ! -s "$cache/$RIPGREP_ASSET" ]; then
  mkdir -p "$cache"
  staging=$(mktemp -d)
  cp "$RG" "$staging/rg"
  tar -czf "$cache/$RIPGREP_ASSET" -C "$staging" rg
  rm -rf "$staging"
fi

echo "install-code-server: npm install code-server@$VERSION into $DIR (a few minutes)"
rm -rf "$DIR"
mkdir -p "$DIR"
# A package.json of its own, so that npm does not climb up into the pnpm workspace.
printf '{ "name": "e2e-code-server", "private": true }\n' >"$DIR/package.json"
log="$DIR/install.log"
if ! (
  cd "$DIR" &&
    npm_config_unsafe_perm=true npm_config_yes=true npm_config_dangerously_allow_all_scripts=true \
      npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false \
      npm install --no-package-lock --loglevel=warn "code-server@$VERSION"
) >"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "install-code-server: npm install failed; the full log is $log" >&2
  exit 1
fi
# The postinstall's work, checked: npm may skip install scripts and still exit 0.
for built in "$VSCODE/node_modules.asar" "$VSCODE/node_modules/@vscode/ripgrep/bin/rg" \
  "$VSCODE/node_modules/kerberos/build/Release/kerberos.node"; do
  if [ ! -e "$built" ]; then
    tail -n 60 "$log" >&2
    echo "install-code-server: $built is missing after the install; the full log is $log" >&2
    exit 1
  fi
done
"$BIN" --version >/dev/null
touch "$STAMP"
echo "code-server $VERSION installed: $BIN"
