"""DingTalk: robots in Stream mode (`stream`) or by HTTP callback (`http_route`), the Open API (`api`,
`cards`), its messages (`wire`), `settings` and `doctor` checks.

Composition picks the platform up through `platform.py` (see `claw.channels.platform`)."""
