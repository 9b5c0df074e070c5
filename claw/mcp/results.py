"""A `tools/call` result turned into what the model reads: text marked as coming from the server.

Everything a server says is untrusted (it may relay a web page, an issue, an email), so its text is
wrapped like a channel message (`claw.untrusted`). Images are saved under the state folder and
described by path and size, since tool results are text here; embedded resources give their text, or
their URI and type; structured content is added as JSON when the server sent no text for it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from pathlib import Path
from typing import Any

from claw.paths import ensure_private_dir
from claw.tools.base import ToolResult
from claw.untrusted import wrap_untrusted

_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


def to_tool_result(result: Any, server: str, media_dir: Path) -> ToolResult:
    """`result` (an SDK `CallToolResult`) as one text result from `server`."""
    parts: list[str] = []
    for block in result.content or ():
        parts.append(_block_text(block, media_dir))
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(p.strip() for p in parts):
        parts.append(json.dumps(structured, ensure_ascii=False, indent=1))
    text = "\n".join(p for p in parts if p) or "(the tool returned nothing)"
    return ToolResult(wrap_untrusted(text, f"MCP server {server}"), is_error=bool(result.is_error))


def _block_text(block: Any, media_dir: Path) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return _saved(block.data, block.mime_type, kind, media_dir)
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return f"[resource {resource.uri}]\n{text}"
        mime = getattr(resource, "mime_type", None) or "application/octet-stream"
        return _saved(resource.blob, mime, "resource", media_dir, uri=str(resource.uri))
    if kind == "resource_link":
        return f"[resource link {block.uri}: {block.name}]"
    return f"[{kind or 'unknown'} content left out]"


def _saved(data: str, mime: str, kind: str, media_dir: Path, *, uri: str = "") -> str:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"[{kind} ({mime}) with invalid base64 data left out]"
    digest = hashlib.sha256(raw).hexdigest()[:16]
    path = ensure_private_dir(media_dir) / f"{digest}{_SUFFIX.get(mime, '.bin')}"
    if not path.exists():
        path.write_bytes(raw)
    where = f" from {uri}" if uri else ""
    return f"[{kind}{where}: {mime}, {len(raw):,} bytes, saved to {path}]"
