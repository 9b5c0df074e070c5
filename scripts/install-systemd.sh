#!/usr/bin/env bash
# systemd's tools for tests/service/: systemd-analyze (the generated unit must pass `verify`), systemctl and the
# user manager (`systemd --user`, started by the lifecycle test in a bwrap namespace of its own).
# Debian/Ubuntu's `systemd` package, without its recommends; nothing is enabled or started by installing it.
set -euo pipefail
if command -v systemd-analyze >/dev/null 2>&1 && [[ -x /lib/systemd/systemd ]]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-systemd: no apt-get here; install systemd (systemd-analyze, systemctl) yourself" >&2
    exit 1
fi
apt-get install -y -qq --no-install-recommends systemd >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends systemd >/dev/null; }
command -v systemd-analyze >/dev/null
