"""The sessions sidebar."""
