"""`Section`: the base of every config.toml settings model, and the value types sections share.

Keys are camelCase in the file and snake_case in Python (either is accepted), unknown keys
are errors, infinities and NaN are refused, and a loaded section is immutable.

The value types check what a plain `str` would let through and something downstream would
trip over later, usually inside the running gateway: a bind address that cannot be bound, a
URL claw would POST to that is a `file://` path, a name that ends up in a URL or a file name
(`../../x`), an empty model ref or folder. Each raises ValueError with a message that says
what is expected; the loader adds the key, the file and the value.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict
from pydantic.alias_generators import to_camel


class Section(BaseModel):
    # allow_inf_nan: TOML spells `inf` and `nan`; no timeout, ratio or size of claw's means either.
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True, allow_inf_nan=False
    )


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
_UNPRINTABLE = re.compile(r"[\s\x00-\x1f\x7f]")


def check_name(value: str) -> str:
    """A name that becomes part of a URL path or a file name (`/hooks/<name>`, a hook's folder)."""
    if not _NAME.match(value):
        raise ValueError("invalid name: use 1-64 letters, digits, '_' or '-', starting with a letter or digit")
    return value


def check_bind_host(value: str) -> str:
    """An address to listen on: an IP address without brackets (`127.0.0.1`, `0.0.0.0`, `::`) or a host name."""
    try:
        ipaddress.ip_address(value)
        return value
    except ValueError:
        pass
    labels = value.removesuffix(".").split(".")
    if len(value) <= 253 and all(_HOST_LABEL.match(label) for label in labels) and not labels[-1].isdigit():
        return value
    raise ValueError("not an address to listen on: use an IP address (127.0.0.1, 0.0.0.0, ::) or a host name")


def check_http_url(value: str) -> str:
    """A URL claw sends requests to: http or https, with a host, and nothing unprintable in it."""
    problem = "must be an http:// or https:// URL with a host"
    if _UNPRINTABLE.search(value):
        raise ValueError(f"{problem} (it holds a space or control character)")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError as exc:
        raise ValueError(f"{problem} ({exc})") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(problem)
    return value


def check_origin(value: str) -> str:
    """A browser origin as the `Origin` header sends it: `scheme://host[:port]`, no path, not even `/`."""
    problem = "must be an origin such as http://localhost:5173 (scheme, host and port only, no trailing slash)"
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - see check_http_url
    except ValueError:
        raise ValueError(problem) from None
    if not (parts.scheme and parts.hostname) or parts.path or parts.query or parts.fragment or "@" in parts.netloc:
        raise ValueError(problem)
    if _UNPRINTABLE.search(value):
        raise ValueError(problem)
    return value


def check_model_ref(value: str) -> str:
    """`provider/model` or a bare model name: not empty, no spaces, no empty part around the slash."""
    if not value.strip():
        raise ValueError("a model ref cannot be empty: use provider/model (e.g. openai/gpt-4o-mini), or unset the key")
    if _UNPRINTABLE.search(value) or value.startswith("/") or value.endswith("/"):
        raise ValueError("not a model ref: use provider/model (e.g. openai/gpt-4o-mini), without spaces")
    return value


def _not_blank_path(value: Any) -> Any:
    # Path("") is Path("."): an empty folder setting would quietly mean the current folder.
    if isinstance(value, str) and not value.strip():
        raise ValueError("a folder cannot be empty: give a path, or unset the key")
    return value


Name = Annotated[str, AfterValidator(check_name)]
"""A name used in URLs and file names."""
BindHost = Annotated[str, AfterValidator(check_bind_host)]
HttpUrl = Annotated[str, AfterValidator(check_http_url)]
"""A URL requests are sent to (http or https only)."""
Origin = Annotated[str, AfterValidator(check_origin)]
ModelRefText = Annotated[str, AfterValidator(check_model_ref)]
FolderPath = Annotated[Path, BeforeValidator(_not_blank_path)]
