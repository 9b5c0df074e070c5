"""`Section`: the base of every config.toml settings model.

Keys are camelCase in the file and snake_case in Python (either is accepted), unknown keys
are errors, and a loaded section is immutable.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Section(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)
