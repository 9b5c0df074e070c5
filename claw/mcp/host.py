"""`McpHost`: what the MCP capability asks of the gateway: the settings and where state is kept."""

from __future__ import annotations

from typing import Protocol

from claw.gateway.host import Configured


class McpHost(Configured, Protocol):
    pass
