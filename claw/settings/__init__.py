"""config.toml's section models of every capability, at the bottom of the package graph.

Each module here is a pydantic model of one section (`[automations]`, `[channels.slack]`, `[agents.*.sandbox]`
…) and imports nothing of claw but `claw.settings_base` and its neighbours here, so `claw.config` can type its
sections with them without importing the capabilities they configure (which import `claw.config`).
"""
