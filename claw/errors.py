"""The one exception tree: every error claw raises for a caller to catch derives from `ClawError`.

Each carries its one-line `message` (what the user reads) and `exit_code`. The CLI turns a `ClawError` into
that line on stderr and that exit; anything else is a bug and keeps its traceback. Errors that callers used
to catch as `ValueError` (`JsonError`, a skill's `FrontmatterError` …) derive from both. tests/test_error_tree.py
fails for an exception class in claw/ outside the tree, but for the control-flow signals it names.
"""

from __future__ import annotations


class ClawError(Exception):
    """An error with a message meant for the user."""

    exit_code: int = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(ClawError):
    """The command line asked for something that cannot be done as asked."""

    exit_code = 2


class ConfigError(ClawError):
    """config.toml (or an override) holds a value claw cannot use."""

    exit_code = 2


class NoModelError(ConfigError):
    """No model is configured, so nothing that needs one can run."""

    def __init__(self) -> None:
        super().__init__(
            "no model configured: set CLAW_MODEL (with OPENAI_BASE_URL / OPENAI_API_KEY for your endpoint), "
            "or run `claw config set agents.defaults.model openai/<model>`"
        )


class NotFoundError(ClawError):
    """A named thing (session, agent, file) does not exist."""

    exit_code = 1


class GatewayUnavailable(ClawError):
    """No gateway answered where one was expected."""

    exit_code = 1


class PathEscapeError(ClawError):
    """A tool path resolves outside the directory it is confined to."""

    def __init__(self, path: str) -> None:
        super().__init__(f"path escapes workspace: {path}")
