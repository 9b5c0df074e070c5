"""The browser pages on the gateway's port: claw's web chat (`/chat/`, static files in `static/`, no build step)
and, when `gateway.controlUi.root` names one, a Control UI build of OpenClaw's at `/`.

I/O only, like claw/server/: the pages speak protocol 4 over the gateway's own WebSocket, so they need
nothing from the gateway but its port. The server (claw/server/server.py) mounts them and guards them.
"""
