"""Tests of claw/channels/feishu/."""
