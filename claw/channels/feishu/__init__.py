"""Feishu / Lark: apps by event subscription (`http_route`) or the long connection (`ws`, `frame`), the Open
API (`api`, `names`), its events (`wire`, `crypto`) and `doctor` checks.
Its `[channels.feishu]` model is in `claw/settings/`.

Composition picks the platform up through `platform.py` (see `claw.channels.platform`)."""
