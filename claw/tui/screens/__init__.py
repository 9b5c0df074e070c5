"""Screens of the console, each next to its `.tcss`."""
