"""The webhook channel: signed `POST /hooks/<name>` in, replies POSTed to the hook's `replyUrl` (`adapter`).
Its `[channels.webhook]` model is in `claw/settings/`.

Composition picks the platform up through `platform.py` (see `claw.channels.platform`)."""
