"""The events a hook receives, under the name hook handlers import them by:
`from claw.hooks.events import CommandEvent`.

They are defined, and documented field by field, in `claw.gateway.hook_events`: the gateway fires
them, so the core owns them. This module keeps the documented import working for every handler.py,
bundled or written by a user.
"""

from __future__ import annotations

from claw.gateway.hook_events import (
    EVENT_NAMES,
    AgentBootstrap,
    CommandEvent,
    GatewayStartup,
    HookEvent,
    MessageReceived,
    MessageSent,
    RunEnd,
)

__all__ = [
    "EVENT_NAMES",
    "AgentBootstrap",
    "CommandEvent",
    "GatewayStartup",
    "HookEvent",
    "MessageReceived",
    "MessageSent",
    "RunEnd",
]
