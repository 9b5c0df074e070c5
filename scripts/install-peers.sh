#!/usr/bin/env bash
# Installs the Python peers that bench/peers.py runs beside claw (issue 41): nanobot (PyPI nanobot-ai) and
# hermes (PyPI hermes-agent), each at a pinned version into its own venv under
# ${XDG_CACHE_HOME:-$HOME/.cache}/claw-peers/<name>-<version>. Only PyPI is used; a second run reuses what is
# there (the marker is written only after pip succeeded, so an interrupted install is redone). OpenClaw, the
# third peer, comes from scripts/install-openclaw.sh.
#
#   eval "$(bash scripts/install-peers.sh)"     # exports NANOBOT and HERMES (paths of their CLIs)
#
# Exit 2 (with a message) when python3 with venv is absent.
set -euo pipefail
CLAW_PEERS=${CLAW_PEERS:-${XDG_CACHE_HOME:-$HOME/.cache}/claw-peers}
NANOBOT_VERSION=0.3.5
HERMES_VERSION=0.19.0
python=${PYTHON3:-python3}

command -v "$python" >/dev/null || { echo "python3 is needed (Debian: apt-get install -y python3 python3-venv)" >&2; exit 2; }
"$python" -c 'import venv, ensurepip' 2>/dev/null \
  || { echo "python3's venv is needed (Debian: apt-get install -y python3-venv)" >&2; exit 2; }
command -v flock >/dev/null || { echo "flock is needed (Debian: util-linux)" >&2; exit 2; }
mkdir -p "$CLAW_PEERS"
exec 9>"$CLAW_PEERS/.install.lock"
flock 9  # released when this script exits

# install NAME PACKAGE VERSION: one venv per pinned version
install() {
  local dir=$CLAW_PEERS/$1-$3
  [[ -f $dir/.installed ]] && return 0
  rm -rf "$dir"
  "$python" -m venv "$dir"
  # PIP_CONSTRAINT= : a machine-wide constraints file (for the host's own venvs) must not pin a peer's dependencies.
  PIP_CONSTRAINT= "$dir/bin/pip" install --quiet --disable-pip-version-check "$2==$3" >&2
  touch "$dir/.installed"
}

install nanobot nanobot-ai "$NANOBOT_VERSION"
install hermes hermes-agent "$HERMES_VERSION"

echo "export CLAW_PEERS=$CLAW_PEERS"
echo "export NANOBOT=$CLAW_PEERS/nanobot-$NANOBOT_VERSION/bin/nanobot NANOBOT_VERSION=$NANOBOT_VERSION"
echo "export HERMES=$CLAW_PEERS/hermes-$HERMES_VERSION/bin/hermes HERMES_VERSION=$HERMES_VERSION"
