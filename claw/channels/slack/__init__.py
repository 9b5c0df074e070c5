"""Slack: apps by the Events API (`http_route`) or Socket Mode (`socket_mode`), the Web API (`api`), its events
(`wire`) and `doctor` checks.
Its `[channels.slack]` model is in `claw/settings/`.

Composition picks the platform up through `platform.py` (see `claw.channels.platform`)."""
