"""docs/troubleshooting.md says which platforms `claw doctor --online` asks — every platform of composition's
table with an online check, no fewer."""

from __future__ import annotations

from pathlib import Path

from claw.compose import CHANNEL_PLATFORMS

ROOT = Path(__file__).resolve().parents[2]
NAMES = {"discord": "Discord", "slack": "Slack", "feishu": "Feishu", "dingtalk": "DingTalk", "telegram": "Telegram"}


def test_the_readme_names_every_platform_doctor_online_asks() -> None:
    asked = {platform.name for platform in CHANNEL_PLATFORMS if platform.check_online is not None}
    assert asked >= {"discord", "slack", "feishu", "dingtalk"}
    readme = (ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
    [line] = [line for line in readme.splitlines() if line.startswith("claw doctor --online ") and "platform" in line]
    assert "today" not in line
    for platform in asked:
        assert NAMES[platform] in line, (platform, line)
