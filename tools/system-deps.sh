#!/usr/bin/env bash
# System packages the test suite needs (called by `make test`): bubblewrap for the exec
# sandbox tests (SPEC §6.6), and libseccomp2, the library the `pyseccomp` dependency loads to
# build the `[exec] network = false` filter (on Debian apt itself depends on it, so it is
# almost always there); lua-check (luacheck) for `make lint` of the Neovim plugin;
# chromium, the headless browser that drives VS Code (code-server) in
# tests/e2e/test_vscode_*, and libkrb5-dev, the gssapi headers code-server's kerberos module
# compiles against (editors/vscode/scripts/install-code-server.sh); postgresql, whose initdb
# and pg_ctl the tests use to start a throwaway cluster for the PostgreSQL store (§12,
# tests/support/pg.py; it runs as the package's `postgres` user when we are root).
# Idempotent: installs only what is missing, only as root with apt-get; otherwise says what
# is missing and how to get it (the sandbox tests then skip with that reason; lint and the
# VS Code tests fail).
set -euo pipefail

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
installed libseccomp2 || missing+=(libseccomp2)
command -v luacheck >/dev/null 2>&1 || missing+=(lua-check)
[ -x /usr/bin/chromium ] || missing+=(chromium)
installed libkrb5-dev || missing+=(libkrb5-dev)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    apt-get update -qq >/dev/null
    apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  echo "system-deps: missing ${missing[*]} (not root or no apt-get: run" \
    "'sudo apt-get install ${missing[*]}')"
fi
