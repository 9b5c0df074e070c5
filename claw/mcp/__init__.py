"""MCP: Model Context Protocol servers as tool sources for the agents, and claw itself as an MCP server.

Only `claw.settings.mcp` is imported when the config loads; the SDK (`mcp`) is imported by the modules
that talk to servers, and those load only when a server is configured (or `claw mcp …` runs)."""
