"""Tests of claw/channels/dingtalk/."""
