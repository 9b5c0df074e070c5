"""The conversation pane: messages, tool cards, notices."""
