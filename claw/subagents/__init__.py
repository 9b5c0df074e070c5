"""Subagents: `sessions_spawn` child runs, their supervision and announcement, and the session tools.

- `spawn_tool` / `spawner`: checks the limits, creates the child's session and starts its run.
- `supervisor`: waits for the child, stores its result, then announces it to the parent session.
- `registry`: the children of this gateway, running and recent (`subagents.*` RPC methods).
- `list_tool`, `history_tool`, `send_tool`: `sessions_list`, `sessions_history`, `sessions_send`.
"""
