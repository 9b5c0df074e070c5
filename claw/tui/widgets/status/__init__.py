"""The status bar."""
