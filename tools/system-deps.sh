#!/usr/bin/env bash
# System packages the test suite needs, from Debian's archive. Idempotent: installs only
# what is missing, and only as root (elsewhere it names what is missing and carries on, so
# the tests that need it fail with that name).
#
#   lua-check     luacheck, the linter of the Neovim plugin (make lint)
set -euo pipefail

PACKAGES=(
  lua-check
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "system-deps: all present (${PACKAGES[*]})"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "system-deps: missing ${missing[*]}; not root, so not installing them" \
    "(run: sudo apt-get install ${missing[*]})" >&2
  exit 0
fi
echo "system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt_get=(apt-get -o DPkg::Lock::Timeout=300 -qq)
"${apt_get[@]}" update
"${apt_get[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
echo "system-deps: installed ${missing[*]}"
