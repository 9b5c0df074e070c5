#!/usr/bin/env bash
# Installs only OpenClaw's `openclaw-node` client library and a Node 24 to run it (see install-openclaw.sh,
# which this is a part of). Prints the environment to use:
#
#   eval "$(bash scripts/install-openclaw-node.sh)"
#   cd "$OPENCLAW_NODE_CLIENT_DIR" && node my-client.mjs    # import { OpenClawClient } from "openclaw-node"
exec bash "$(dirname "$0")/install-openclaw.sh" node-client
