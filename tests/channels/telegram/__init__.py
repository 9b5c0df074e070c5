"""Tests of claw/channels/telegram/."""
