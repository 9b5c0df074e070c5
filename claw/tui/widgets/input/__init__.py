"""The input area: the prompt, slash-command completion, queued messages."""
