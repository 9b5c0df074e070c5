"""Discord: bots over the Discord gateway WebSocket (`gateway`) and REST (`rest`), its messages (`wire`),
`settings` and `doctor` checks.

Composition picks the platform up through `platform.py` (see `claw.channels.platform`)."""
