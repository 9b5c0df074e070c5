"""Tests of claw/channels/slack/."""
