"""A server's tool schema made acceptable to the model's provider, or refused with the reason.

Servers publish JSON Schemas that providers reject in small ways (no `type`, no `properties`, a
`$schema` key, a top level that is not an object) and occasionally in large ones (a schema that is
not a schema). The small ones are fixed here; a tool whose schema cannot be fixed is skipped, with a
reason that `claw mcp tools` and the server's state show, rather than failing the whole turn at the
provider.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_DROPPED_KEYS = ("$schema", "$id")
MAX_SCHEMA_CHARS = 60_000


@dataclass(frozen=True, slots=True)
class CheckedSchema:
    """The schema to offer (None when the tool is skipped) and why it was skipped."""

    parameters: dict[str, Any] | None
    problem: str = ""


def tool_name(server: str, tool: str) -> str | None:
    """`<server>__<tool>` as the model sees it, or None when that is not a name providers accept."""
    name = f"{server}__{tool}"
    return name if _NAME.match(name) else None


def check_schema(raw: Any) -> CheckedSchema:
    """`raw` (a tool's `inputSchema`) fixed for the provider, or None with the problem."""
    if raw is None:
        return CheckedSchema({"type": "object", "properties": {}})
    if not isinstance(raw, dict):
        return CheckedSchema(None, f"the input schema is a {type(raw).__name__}, not an object schema")
    schema = {k: v for k, v in raw.items() if k not in _DROPPED_KEYS}
    kind = schema.setdefault("type", "object")
    if kind != "object":
        return CheckedSchema(None, f"the input schema's type is {kind!r}; a tool's arguments must be an object")
    properties = schema.setdefault("properties", {})
    if not isinstance(properties, dict):
        return CheckedSchema(None, "the input schema's `properties` is not an object")
    required = schema.get("required")
    if required is not None and not (isinstance(required, list) and all(isinstance(r, str) for r in required)):
        return CheckedSchema(None, "the input schema's `required` is not a list of names")
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return CheckedSchema(None, f"the input schema is not a valid JSON Schema: {exc.message}")
    if len(repr(schema)) > MAX_SCHEMA_CHARS:
        return CheckedSchema(None, f"the input schema is over {MAX_SCHEMA_CHARS:,} characters")
    return CheckedSchema(schema)
