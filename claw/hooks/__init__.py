"""Lifecycle hooks: Python handlers that run when something happens in the gateway.

A hook is a folder with `HOOK.md` (YAML frontmatter: name, description, events) and
`handler.py` (a `handle(event)` function, plain or async). Hooks are found in the agent's
`<workspace>/hooks/`, in `$CLAW_HOME/hooks/` and in claw's bundled `hooks/` folder, in that
order of precedence. Handlers import the events as `claw.hooks.events`; they are defined, with
their payloads, in `claw.gateway.hook_events`.

This package is the hooks capability: it finds and loads hooks and attaches its registry to the
gateway's `HookBus` (`claw.gateway.hook_bus`), which the core fires its events into.
"""
