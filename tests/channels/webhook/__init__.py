"""Tests of claw/channels/webhook/."""
