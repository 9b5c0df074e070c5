"""`claw doctor` for Feishu: settings offline; a tenant_access_token (and, in long-connection mode, a connection
URL) from the fake platform online; through the CLI, one finding per account and never a secret shown."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from claw.channels.feishu.doctor import check_config, online_check
from claw.settings.feishu import FeishuAccount, FeishuSettings
from tests.channels.feishu_fake import APP_ID, APP_SECRET, ENCRYPT_KEY, FakeFeishuWs
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw


@pytest.fixture
def fake() -> Iterator[FakeFeishuWs]:
    server = FakeFeishuWs()
    server.start()
    yield server
    server.stop()


def test_settings_per_account(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FEISHU_APP_SECRET", raising=False)
    monkeypatch.setenv("OTHER_SECRET", "s3cret-value")
    settings = FeishuSettings.model_validate({"accounts": {
        "nosecret": {"appId": APP_ID},
        "ws": {"appId": APP_ID, "appSecretEnv": "OTHER_SECRET", "mode": "websocket"},
        "hook": {"appId": APP_ID, "appSecretEnv": "OTHER_SECRET"},
        "plain": {"appId": APP_ID, "appSecretEnv": "OTHER_SECRET", "verificationToken": "vt"},
        "noid": {"appSecretEnv": "OTHER_SECRET", "mode": "websocket"},
    }})  # fmt: skip
    found = {f.name: f for f in check_config(settings)}
    assert found["feishu/nosecret"].status == "fail" and "FEISHU_APP_SECRET" in found["feishu/nosecret"].detail
    assert found["feishu/ws"].status == "ok" and "long connection" in found["feishu/ws"].detail
    assert found["feishu/hook"].status == "fail" and "websocket" in (found["feishu/hook"].fix or "")
    assert found["feishu/plain"].status == "warn"
    assert found["feishu/noid"].status == "fail" and "appId" in found["feishu/noid"].detail
    assert "s3cret-value" not in json.dumps([f.to_json() for f in found.values()])
    assert check_config(FeishuSettings()) == []  # nothing configured: nothing to say


async def test_the_online_check_asks_the_platform(fake: FakeFeishuWs) -> None:
    hook = FeishuAccount(app_id=APP_ID, app_secret=APP_SECRET, encrypt_key=ENCRYPT_KEY, api_base_url=fake.url)
    good = await online_check("default", hook)
    assert (good.status, good.detail) == ("ok", "tenant_access_token issued") and not fake.endpoint_calls
    ws = hook.model_copy(update={"mode": "websocket"})
    assert (await online_check("default", ws)).status == "ok" and len(fake.endpoint_calls) == 1
    assert not fake.connects  # a URL was offered; nothing connected
    bad = await online_check("default", hook.model_copy(update={"app_secret": "wrong"}))
    assert bad.status == "fail" and "app secret invalid" in bad.detail
    fake.endpoint_refusal = (1000040351, "long connection is not enabled")
    refused = await online_check("default", ws)
    assert refused.status == "fail" and "long connection is not enabled" in refused.detail
    assert "long connection to receive events" in (refused.fix or "")


def test_claw_doctor_online_asks_feishu_for_each_account(claw_env: ClawEnv, fake: FakeFeishuWs) -> None:
    assert run_claw(claw_env.env, "init").returncode == 0
    with (claw_env.home / "config.toml").open("a") as config:
        config.write(
            f'\n[channels.feishu]\nappId = "{APP_ID}"\napiBaseUrl = "{fake.url}"\nmode = "websocket"\n'
            f'[channels.feishu.accounts.good]\nappSecret = "{APP_SECRET}"\n'
            '[channels.feishu.accounts.bad]\nappSecret = "wrong-secret-value"\n'
        )

    def feishu_checks(*args: str) -> tuple[int, list[tuple[str, str, str]]]:
        done = run_claw(claw_env.env, "doctor", "--json", *args)
        checks = json.loads(done.stdout)["checks"]
        return done.returncode, [
            (c["name"], c["status"], c["detail"]) for c in checks if c["name"].startswith("feishu")
        ]

    code, offline = feishu_checks()
    assert code == 0 and [(n, s) for n, s, _ in offline] == [("feishu/good", "ok"), ("feishu/bad", "ok")]
    code, online = feishu_checks("--online")
    assert code == 1  # the wrong secret fails the run
    assert [(n, s) for n, s, _ in online[2:]] == [("feishu/good", "ok"), ("feishu/bad", "fail")]
    assert "app secret invalid" in online[3][2]
    assert APP_SECRET not in json.dumps(online) and "wrong-secret-value" not in json.dumps(online)
