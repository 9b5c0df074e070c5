"""DingTalk: robots in Stream mode (`stream`) or by HTTP callback (`http_route`), the Open API (`api`,
`cards`), its messages (`wire`) and `doctor` checks.
Its `[channels.dingtalk]` model is in `claw/settings/`.

Composition picks the platform up through `platform.py` (see `claw.channels.platform`)."""
