"""claw: a terminal-first, self-hosted personal AI agent gateway."""

__version__ = "0.1.0"
