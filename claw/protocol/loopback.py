"""Which addresses count as this machine's: the server refuses to bind beyond them without a token, and a
client may then connect without one."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses; False for wildcards (0.0.0.0, ::) and everything else."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
