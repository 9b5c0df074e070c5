"""Discord: bots over the Discord gateway WebSocket (`gateway`) and REST (`rest`), its messages (`wire`) and
`doctor` checks.
Its `[channels.discord]` model is in `claw/settings/`.

Composition picks the platform up through `platform.py` (see `claw.channels.platform`)."""
