"""Telegram: bots by long polling or webhook (`adapter`), the Bot API (`api`), its updates (`wire`).
Its `[channels.telegram]` model is in `claw/settings/`.

Composition picks the platform up through `platform.py` (see `claw.channels.platform`)."""
