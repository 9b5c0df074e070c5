"""`NoModelPanel`: shown when the agent has no model, saying exactly how to configure one."""

from __future__ import annotations

from textual.widgets import Markdown

HOW_TO = """\
## No model configured

claw talks to any OpenAI-compatible endpoint. Pick one, then restart `claw chat`:

```sh
export OPENAI_API_KEY=sk-…  CLAW_MODEL=gpt-4o-mini                                  # OpenAI
export OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=ollama CLAW_MODEL=qwen3:8b  # Ollama
claw config set agents.defaults.model openai/gpt-4o-mini                            # or in config.toml
```

Or set one for this session now: `/model provider/model`.
Everything else works meanwhile: `/edit soul`, `/sessions`, `/export`, `/help`.
"""


class NoModelPanel(Markdown):
    """The how-to-configure-a-model panel at the top of the conversation."""

    DEFAULT_CSS = """
    NoModelPanel {
        height: auto;
    }
    """

    def __init__(self) -> None:
        super().__init__(HOW_TO)
