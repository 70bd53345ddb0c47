#!/usr/bin/env bash
# Install code-server (the real VS Code workbench, served to a browser) for the extension's
# end-to-end test, from the npm registry only. Idempotent: a working install is kept.
#
#   install-code-server.sh [DEST]     default: ${XDG_CACHE_HOME:-~/.cache}/harness-lsp/code-server-VERSION
#
# Prints the path of the code-server executable on its last line.
# 4.100.3 (= VS Code 1.100.3) is the last release whose postinstall accepts node 20. Its
# install needs three workarounds (shared notes §5b):
#   - as root, its postinstall insists on npm_config_unsafe_perm=true;
#   - node-pty's postinstall runs `npx node-gyp`, which needs npm_config_yes=true without a TTY;
#   - @vscode/ripgrep 1.15.x downloads rg from GitHub at install time (not reachable): its
#     download cache is seeded with the same rg that the npm package @vscode/ripgrep-linux-x64
#     ships.
# The kerberos module compiles against libkrb5-dev (tools/system-deps.sh).
set -euo pipefail

CS_VERSION=4.100.3
RG_CACHE_VERSION=1.15.11   # the @vscode/ripgrep that code-server 4.100.3 pins
RG_PACKAGE=@vscode/ripgrep-linux-x64@1.18.0
RG_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
DEST=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/harness-lsp/code-server-$CS_VERSION}
BIN=$DEST/node_modules/.bin/code-server

if [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; then
  echo "code-server: $("$BIN" --version | head -1) already in $DEST" >&2
  echo "$BIN"
  exit 0
fi

if ! dpkg-query -W -f='${Status}' libkrb5-dev 2>/dev/null | grep -q "install ok installed"; then
  echo "code-server: libkrb5-dev is missing (run tools/system-deps.sh as root)" >&2
  exit 1
fi

cache="$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-$RG_CACHE_VERSION"
if [ ! -f "$cache/$RG_ASSET" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$RG_PACKAGE" >/dev/null && tar xzf ./*.tgz)
  mkdir -p "$cache"
  tar czf "$cache/$RG_ASSET" -C "$tmp/package/bin" rg
  rm -rf "$tmp"
fi

mkdir -p "$DEST"
[ -f "$DEST/package.json" ] || echo '{"name":"harness-code-server","version":"1.0.0","private":true}' >"$DEST/package.json"
echo "code-server: installing $CS_VERSION into $DEST" >&2
(cd "$DEST" && npm_config_yes=true npm_config_unsafe_perm=true \
  npm install --no-audit --no-fund --loglevel=error "code-server@$CS_VERSION" >&2)
"$BIN" --version >&2
echo "$BIN"
