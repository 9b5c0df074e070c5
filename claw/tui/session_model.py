"""Which model a session's next turn starts on, as the console works it out when the gateway cannot say.

The gateway's rule (`AgentRunner.model_chain`): a model stored with the session (`/model`,
`claw chat --model`) is the whole chain, since answering with another one would be a surprise;
otherwise the agent's primary comes first. The console asks the gateway (`sessions.context` names
the model) and falls back to this only where that answer is not to be had or not yet in.
"""

from __future__ import annotations

from collections.abc import Sequence


def effective_model(stored: str | None, agent_models: Sequence[str]) -> str | None:
    """The session's stored model, else the agent's primary; None when neither exists."""
    return stored or (agent_models[0] if agent_models else None)
