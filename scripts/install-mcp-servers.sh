#!/usr/bin/env bash
# Installs the reference MCP servers people actually run, pinned, into a cache folder, for the tests against
# real servers (tests/mcp/real/) and bench/mcp_real.py. A second run reuses what is there.
#
# - from npm, into the npm cache `npx -y` reads (npm_config_cache=$CLAW_MCP/npm):
#   @modelcontextprotocol/server-filesystem, server-memory, server-everything. Each is installed once by its
#   pinned version and once by its bare name (offline, so from that same cache), so that the README's own
#   `npx -y @modelcontextprotocol/server-NAME` finds it installed;
# - from PyPI, into a virtualenv ($CLAW_MCP/venv): mcp-server-time and mcp-server-git, and uv (its `uvx`);
# - through that `uvx`, into uv's cache ($CLAW_MCP/uv): mcp-server-time again, as `uvx mcp-server-time@VERSION`
#   runs it (no Python is downloaded: uv uses the machine's).
#
# Prints the environment to use:   eval "$(bash scripts/install-mcp-servers.sh)"
# Exit 2 (with a message) when npm is absent.
set -euo pipefail
CLAW_MCP=${CLAW_MCP:-${XDG_CACHE_HOME:-$HOME/.cache}/claw-mcp}
NPM_SERVERS_VERSION=${NPM_SERVERS_VERSION:-2026.8.31}
MCP_SERVER_TIME_VERSION=${MCP_SERVER_TIME_VERSION:-2026.10.19}
MCP_SERVER_GIT_VERSION=${MCP_SERVER_GIT_VERSION:-2026.10.19}
UV_VERSION=${UV_VERSION:-0.13.10}
PYTHON=${PYTHON:-python3}

command -v npm >/dev/null || { echo "npm is needed (Debian: apt-get install -y nodejs npm)" >&2; exit 2; }
mkdir -p "$CLAW_MCP/npm"
export npm_config_cache=$CLAW_MCP/npm npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
for server in filesystem memory everything; do
  package=@modelcontextprotocol/server-$server
  stamp=$CLAW_MCP/npm/.installed-$server-$NPM_SERVERS_VERSION
  [[ -e $stamp ]] && continue
  npm exec --yes --package="$package@$NPM_SERVERS_VERSION" -- true >&2
  npm_config_offline=true npm exec --yes --package="$package" -- true >&2
  touch "$stamp"
done

venv=$CLAW_MCP/venv
stamp=$venv/.installed-$MCP_SERVER_TIME_VERSION-$MCP_SERVER_GIT_VERSION-uv$UV_VERSION
if [[ ! -e $stamp ]]; then
  [[ -x $venv/bin/python ]] || "$PYTHON" -m venv "$venv" >&2
  "$venv/bin/pip" install -q "mcp-server-time==$MCP_SERVER_TIME_VERSION" "mcp-server-git==$MCP_SERVER_GIT_VERSION" \
    "uv==$UV_VERSION" >&2
  touch "$stamp"
fi

# uvx keeps what it fetched in its cache; the tests run it offline from there. Warmed with the Python the venv
# was made from, which uv finds first on the PATH below (and the tests put first on theirs).
export UV_CACHE_DIR=$CLAW_MCP/uv UV_PYTHON_DOWNLOADS=never
stamp=$CLAW_MCP/uv/.installed-time-$MCP_SERVER_TIME_VERSION
if [[ ! -e $stamp ]]; then
  PATH=$venv/bin:$PATH "$venv/bin/uvx" "mcp-server-time@$MCP_SERVER_TIME_VERSION" --help >/dev/null
  touch "$stamp"
fi
echo "export CLAW_MCP=$CLAW_MCP"
echo "export npm_config_cache=$CLAW_MCP/npm"
echo "export UV_CACHE_DIR=$CLAW_MCP/uv"
echo "export MCP_SERVER_TIME_VERSION=$MCP_SERVER_TIME_VERSION"
