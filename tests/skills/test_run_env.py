"""A skill's configured `env` and `apiKey` reach the commands `exec` runs for it, per run, and only for
eligible skills; the gateway's own environment wins, and its secrets stay scrubbed."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path

import pytest

from claw.agent.run_scope import RunScope
from claw.agent.sections import SectionRequest
from claw.client.local import LocalClient
from claw.gateway.gateway import Gateway
from claw.settings.skills import SkillsSettings
from claw.skills.run_env import configured_env
from claw.skills.skill import Skill
from tests.gateway.conftest import collect, write_config
from tests.skills.conftest import write_skill
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call

FULL_EXEC = '[agents.defaults.tools.exec]\nsecurity = "full"\nask = "off"\n'
WEATHER_META = {"openclaw": {"requires": {"env": ["WEATHER_API_KEY"]}, "primaryEnv": "WEATHER_API_KEY"}}
WEATHER_ENTRY = '[skills.entries.weather]\napiKey = "wk-secret-7f3a"\nenv = { WEATHER_UNITS = "metric" }\n'


@pytest.fixture(autouse=True)
def _unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WEATHER_API_KEY", "WEATHER_UNITS"):
        monkeypatch.delenv(name, raising=False)


async def exec_result(env: ClawEnv, client: LocalClient, command: str) -> tuple[str, list]:
    """Run one turn whose model calls `exec` with `command`; the tool's result and the run's events."""
    env.server.script(tool_call("exec", {"command": command}), text("done"))
    events = await collect(client, (await client.run("check the weather")).run_id)
    assert events[-1].data["phase"] == "end", events[-1].data
    result = next(e for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert not result.data["isError"], result.data
    return result.data["result"], events


async def test_exec_sees_the_api_key_and_env_of_an_eligible_skill(
    claw_env: ClawEnv, workspace: Path, make_client
) -> None:
    write_skill(workspace / "skills", "weather", metadata=WEATHER_META)
    write_config(claw_env.home, FULL_EXEC + WEATHER_ENTRY)
    output, _ = await exec_result(claw_env, make_client(), 'echo "key=$WEATHER_API_KEY units=$WEATHER_UNITS"')
    assert output.startswith("key=wk-secret-7f3a units=metric\n")
    assert "<name>weather</name>" in claw_env.server.chat_requests[0].body["messages"][0]["content"]


async def test_a_passed_gateway_variable_wins_and_its_secrets_stay_scrubbed(
    claw_env: ClawEnv, workspace: Path, make_client, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_skill(workspace / "skills", "weather", metadata=WEATHER_META)
    write_config(claw_env.home, FULL_EXEC + 'passEnv = ["WEATHER_*", "GATEWAY_*"]\n' + WEATHER_ENTRY)
    monkeypatch.setenv("WEATHER_UNITS", "imperial")  # exported for the gateway and passed: wins over the config
    monkeypatch.setenv("WEATHER_API_KEY", "gateway-own-key")  # secret-looking: no glob passes it; the config fills it
    monkeypatch.setenv("GATEWAY_DB_PASSWORD", "hunter2")
    command = 'echo "key=$WEATHER_API_KEY units=$WEATHER_UNITS pw=${GATEWAY_DB_PASSWORD:-unset}"'
    output, _ = await exec_result(claw_env, make_client(), command)
    assert output.startswith("key=wk-secret-7f3a units=imperial pw=unset\n")
    assert "gateway-own-key" not in output and "hunter2" not in output


async def test_a_gateway_variable_not_passed_leaves_the_skills_value(
    claw_env: ClawEnv, workspace: Path, make_client, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_skill(workspace / "skills", "weather", metadata=WEATHER_META)
    write_config(claw_env.home, FULL_EXEC + WEATHER_ENTRY)
    monkeypatch.setenv("WEATHER_UNITS", "imperial")  # claw's own environment, which commands do not get
    output, _ = await exec_result(claw_env, make_client(), 'echo "units=$WEATHER_UNITS"')
    assert output.startswith("units=metric\n")


async def test_ineligible_skills_contribute_nothing(claw_env: ClawEnv, workspace: Path, make_client) -> None:
    skills = workspace / "skills"
    write_skill(skills, "weather", metadata=WEATHER_META)  # disabled below
    write_skill(skills, "unlisted")  # not in the agent's skills list
    write_skill(skills, "needs-bin", metadata={"requires": {"bins": ["claw-test-absent-binary"]}})
    write_skill(skills, "listed")
    write_config(
        claw_env.home,
        '[agents.defaults]\nskills = ["weather", "needs-bin", "listed"]\n'
        + FULL_EXEC
        + WEATHER_ENTRY
        + "enabled = false\n"
        + '[skills.entries.unlisted]\nenv = { CLAWTEST_UNLISTED = "u" }\n'
        + '[skills.entries.needs-bin]\nenv = { CLAWTEST_NEEDS_BIN = "b" }\n'
        + '[skills.entries.listed]\nenv = { CLAWTEST_LISTED = "l" }\n',
    )
    command = 'echo "[$WEATHER_API_KEY|$WEATHER_UNITS|$CLAWTEST_UNLISTED|$CLAWTEST_NEEDS_BIN|$CLAWTEST_LISTED]"'
    output, _ = await exec_result(claw_env, make_client(), command)
    assert output.startswith("[||||l]\n")


async def test_the_values_stay_out_of_events_transcripts_and_logs(
    claw_env: ClawEnv, workspace: Path, make_client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    write_skill(workspace / "skills", "weather", metadata=WEATHER_META)
    write_config(claw_env.home, FULL_EXEC + WEATHER_ENTRY)
    output, events = await exec_result(claw_env, make_client(), 'echo "length ${#WEATHER_API_KEY}"')
    assert output.startswith(f"length {len('wk-secret-7f3a')}\n")  # the command saw it, and did not print it
    assert "wk-secret-7f3a" not in caplog.text
    assert not any("wk-secret-7f3a" in json.dumps(e.data) for e in events)
    for path in (claw_env.home / "agents").rglob("*"):
        if path.is_file():
            assert "wk-secret-7f3a" not in path.read_text(encoding="utf-8", errors="replace"), path
    assert "wk-secret-7f3a" not in json.dumps(claw_env.server.chat_requests[-1].body)


def section_request(gw: Gateway, scope: RunScope | None = None) -> SectionRequest:
    return SectionRequest(
        agent_id="main",
        session_key="agent:main:subagent:x",
        workspace=gw.workspace("main"),
        settings=gw.config.agent("main"),
        message="go",
        channel="cli",
        sender_id="local",
        scope=scope or RunScope(),
    )


async def test_a_subagent_scope_narrows_which_skills_contribute(
    claw_env: ClawEnv, workspace: Path, make_client
) -> None:
    write_skill(workspace / "skills", "alpha")
    write_skill(workspace / "skills", "beta")
    write_config(
        claw_env.home,
        '[skills.entries.alpha]\nenv = { CLAWTEST_A = "a" }\n[skills.entries.beta]\nenv = { CLAWTEST_B = "b" }\n',
    )
    gw = make_client().gateway
    assert await gw.runner.run_env(section_request(gw)) == {"CLAWTEST_A": "a", "CLAWTEST_B": "b"}
    assert await gw.runner.run_env(section_request(gw, RunScope(skills=("beta",)))) == {"CLAWTEST_B": "b"}
    assert await gw.runner.run_env(section_request(gw, RunScope(skills=()))) == {}


class _Source:
    def __init__(self, name: str, values: Mapping[str, str] | None) -> None:
        self.name = name
        self._values = values

    async def env(self, request: SectionRequest) -> Mapping[str, str]:
        if self._values is None:
            raise RuntimeError("broken source")
        return self._values


async def test_the_first_registered_source_wins_and_a_broken_one_is_left_out(
    claw_env: ClawEnv, client: LocalClient
) -> None:
    runner = client.gateway.runner
    runner.env_sources[:] = [_Source("one", {"A": "1"}), _Source("broken", None), _Source("two", {"A": "2", "B": "2"})]
    assert await runner.run_env(section_request(client.gateway)) == {"A": "1", "B": "2"}


def test_merge_order_first_listed_skill_wins_and_env_comes_before_api_key() -> None:
    def skill(name: str, primary_env: str | None = None, key: str | None = None) -> Skill:
        return Skill(name, "d", Path("/s") / name, "workspace", primary_env=primary_env, skill_key=key)

    settings = SkillsSettings.model_validate(
        {
            "entries": {
                "alpha": {"env": {"SHARED": "alpha", "A_KEY": "from-env", "EMPTY": ""}, "apiKey": "from-api-key"},
                "beta": {"env": {"SHARED": "beta", "EMPTY": "beta", "BAD=NAME": "x", "NUL": "a\0b"}},
                "sneaky": {"env": {"LD_PRELOAD": "/x.so", "bash_env": "/rc", "NODE_OPTIONS": "-r x", "OK": "1"}},
                "gamma-key": {"apiKey": "gamma-api-key"},
                "off": {"enabled": False, "env": {"OFF": "x"}},
                "no-primary": {"apiKey": "unused"},
            }
        }
    )
    skills = [
        skill("alpha", primary_env="A_KEY"),
        skill("beta"),
        skill("sneaky"),
        skill("gamma", primary_env="G_KEY", key="gamma-key"),
        skill("off"),
        skill("no-primary"),
        skill("unconfigured"),
    ]
    assert configured_env(skills, settings) == {
        "SHARED": "alpha",
        "A_KEY": "from-env",
        "EMPTY": "beta",
        "OK": "1",  # and none of sneaky's loader or start-up hooks
        "G_KEY": "gamma-api-key",
    }
    assert configured_env(reversed(skills), settings)["SHARED"] == "beta"
