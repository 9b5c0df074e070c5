#!/usr/bin/env bash
# Installs Debian's `chromium` for the browser tests (tests/web/): Playwright for Python drives it through
# `executable_path`, so Playwright's own browser download is never needed (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1).
# apt keeps the package in its cache, so a second run installs nothing. Prints the browser's path.
#
#   bash scripts/install-chromium.sh          # -> /usr/bin/chromium
#
# Exit 2 (with a message) where there is no apt-get and no chromium.
set -euo pipefail
CHROMIUM=${CLAW_CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $CHROMIUM ]]; then
  command -v apt-get >/dev/null || { echo "chromium is needed at $CHROMIUM (Debian: apt-get install -y chromium)" >&2; exit 2; }
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq >&2 || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >&2
fi
"$CHROMIUM" --version >/dev/null 2>&1 || { echo "$CHROMIUM does not run" >&2; exit 1; }
echo "$CHROMIUM"
