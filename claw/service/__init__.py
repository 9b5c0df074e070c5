"""The gateway as a supervised service: a systemd user unit on Linux, a launchd agent on macOS."""
