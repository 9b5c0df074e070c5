"""Whether a model is given back the reasoning of its earlier replies (`sendReasoning`).

Off by default: the reasoning (`thinking` on an assistant entry) is the model's scratch work, it costs
tokens on every later call, and some servers refuse it in the input (DeepSeek's API answers 400 to a
`reasoning_content` in the messages). A few models want it back, e.g. to continue a tool loop they
reasoned about; for those, `[models."provider/model"] sendReasoning = true`.
"""

from __future__ import annotations

from collections.abc import Mapping

from claw.config import ModelSettings
from claw.providers.refs import ModelRef, parse_model_ref


def sends_reasoning(ref: ModelRef | str | None, models: Mapping[str, ModelSettings]) -> bool:
    """True when config sets `sendReasoning` for `ref`, looked up as `model_window` looks up
    `contextWindow`: the ref as written, the parsed ref, then the bare model name."""
    if ref is None:
        return False
    parsed = parse_model_ref(ref) if isinstance(ref, str) else ref
    for key in (str(ref), str(parsed), parsed.model):
        found = models.get(key)
        if found is not None:
            return found.send_reasoning
    return False
