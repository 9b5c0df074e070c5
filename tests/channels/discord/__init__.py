"""Tests of claw/channels/discord/."""
