"""Subagents: the tree of children a turn spawned, one row per child."""
