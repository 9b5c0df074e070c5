"""The security headers every page response carries, and the chat page's Content-Security-Policy.

The web chat's policy allows scripts, styles and connections from its own origin only (no inline script or
style, no `eval`), and no framing at all (`frame-ancestors 'none'`, with `X-Frame-Options` for older
browsers). `connect-src 'self'` covers the page's WebSocket to the same host and port (CSP level 3).
"""

from __future__ import annotations

CHAT_CSP = "; ".join((
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
))  # fmt: skip

COMMON = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
}
"""On every page and asset, whatever serves it (the chat's policy comes in `chat_headers`)."""


def chat_headers(content_type: str) -> dict[str, str]:
    return {**COMMON, "Content-Security-Policy": CHAT_CSP, "Content-Type": content_type, "Cache-Control": "no-cache"}
