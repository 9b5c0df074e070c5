"""Feishu / Lark: apps by event subscription (`http_route`) or the long connection (`ws`, `frame`), the Open
API (`api`, `names`), its events (`wire`, `crypto`), `settings` and `doctor` checks.

Composition picks the platform up through `platform.py` (see `claw.channels.platform`)."""
