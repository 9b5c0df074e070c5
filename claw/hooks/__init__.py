"""Lifecycle hooks: Python handlers that run when something happens in the gateway.

A hook is a folder with `HOOK.md` (YAML frontmatter: name, description, events) and
`handler.py` (a `handle(event)` function, plain or async). Hooks are found in the agent's
`<workspace>/hooks/`, in `$CLAW_HOME/hooks/` and in claw's bundled `hooks/` folder, in that
order of precedence; the events and their payloads are documented in `claw.hooks.events`.
"""
