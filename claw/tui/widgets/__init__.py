"""Widgets of the console, one per file, grouped by the pane they belong to."""
