"""`claw doctor`: the real CLI in a subprocess, against a real claw home and the scripted model server."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from claw.errors import NoModelError
from claw.paths import bundled_dir
from tests.support.fixtures import API_KEY, ClawEnv
from tests.support.model_server import ScriptedModelServer, text
from tests.support.processes import run_claw

CHECKS = [
    "claw home", "gateway token", "config", "temp files", "workspace", "model", "gateway", "gateway db", "sessions",
    "skills", "hooks", "memory index", "sandbox", "mcp",
]  # fmt: skip
NEEDS_CONFIG = ["workspace", "model", "skills", "hooks", "memory index", "sandbox", "mcp"]


def claw(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_claw(env, *args)


def doctor_json(env: dict[str, str], *args: str, expect: int = 0) -> dict[str, dict[str, Any]]:
    """`claw doctor --json` by check name (asserting the exit code and that stderr stayed quiet)."""
    done = claw(env, "doctor", "--json", *args)
    assert done.returncode == expect, done.stdout + done.stderr
    assert done.stderr == "", done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is (expect == 0)
    return {check["name"]: check for check in report["checks"]}


def not_ok(checks: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {name: check["status"] for name, check in checks.items() if check["status"] != "ok"}


@pytest.fixture
def home(claw_env: ClawEnv) -> Path:
    """An initialised claw home, pointed at the scripted model server (CLAW_MODEL=test-model)."""
    done = claw(claw_env.env, "init")
    assert done.returncode == 0, done.stderr
    return claw_env.home


def test_fresh_init_is_all_ok(claw_env: ClawEnv, home: Path) -> None:
    done = claw(claw_env.env, "doctor")

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == f"{len(CHECKS)} ok, 0 warnings, 0 failed"
    assert [line[0] for line in lines[:-1]] == ["✓"] * len(CHECKS)
    details = {line[2:].split("  ")[0].strip(): line for line in lines[:-1]}
    assert list(details) == CHECKS
    assert len({line.index(line[2:].split("  ", 1)[1].lstrip()) for line in lines[:-1]}) == 1  # one column
    assert claw_env.server.base_url in details["model"] and "test-model" in details["model"]
    assert "not running — commands run in-process" in details["gateway"]
    assert [r.path for r in claw_env.server.requests] == ["/v1/models"]


def test_json_shape(claw_env: ClawEnv, home: Path) -> None:
    done = claw(claw_env.env, "doctor", "--json")

    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert set(report) == {"ok", "checks"} and report["ok"] is True
    assert [check["name"] for check in report["checks"]] == CHECKS
    for check in report["checks"]:
        assert set(check) == {"name", "status", "detail", "fix"}
        assert check["status"] == "ok" and check["fix"] is None and check["detail"]


def test_open_state_dir_is_a_warning_that_fix_repairs(claw_env: ClawEnv, home: Path) -> None:
    sessions = home / "agents" / "main" / "sessions"
    home.chmod(0o755)
    sessions.chmod(0o750)
    (home / "config.toml").chmod(0o644)

    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"claw home": "warn", "config": "warn"}
    assert f"{home} (0755)" in checks["claw home"]["detail"] and f"{sessions} (0750)" in checks["claw home"]["detail"]
    assert checks["claw home"]["fix"].startswith("claw doctor --fix")
    assert checks["config"]["fix"] == "claw doctor --fix"

    fixed = claw(claw_env.env, "doctor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert f"fixed: made {home} 0700 (was 0755)" in fixed.stdout
    assert f"fixed: made {sessions} 0700 (was 0750)" in fixed.stdout
    assert f"fixed: made {home / 'config.toml'} 0600 (was 0644)" in fixed.stdout
    assert stat.S_IMODE(home.stat().st_mode) == 0o700 and stat.S_IMODE(sessions.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "config.toml").stat().st_mode) == 0o600

    assert not_ok(doctor_json(claw_env.env)) == {}
    again = claw(claw_env.env, "doctor", "--fix")
    assert "fixed: nothing needed fixing" in again.stdout


def test_token_file_readable_by_others(claw_env: ClawEnv, home: Path) -> None:
    (home / "gateway.token").chmod(0o644)
    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"gateway token": "warn"}
    assert "0644" in checks["gateway token"]["detail"]
    fixed = doctor_json(claw_env.env, "--fix")
    assert not_ok(fixed) == {}
    assert stat.S_IMODE((home / "gateway.token").stat().st_mode) == 0o600


def test_a_token_file_that_is_not_utf8_is_one_line_and_a_doctor_failure(claw_env: ClawEnv, home: Path) -> None:
    """The red team's break: `gateway token` and `gateway run` printed a traceback, doctor said fine."""
    token_file = home / "gateway.token"
    token_file.write_bytes(b"\xff\xfe-not-utf8-\x80")
    for args in (("gateway", "token"), ("gateway", "run", "--port", "0")):
        done = run_claw(claw_env.env, *args, timeout=30)
        assert done.returncode == 2, done
        assert "Traceback" not in done.stderr and done.stdout == "", done
        assert done.stderr.splitlines() == [
            f"claw: the gateway token file {token_file} is not UTF-8 text; delete it, then run `claw init` "
            "to write a new one (clients then need the new token)"
        ], done.stderr
    assert not (home / "gateway.json").exists()
    checks = doctor_json(claw_env.env, expect=1)
    assert checks["gateway token"]["status"] == "fail", checks["gateway token"]
    assert "not UTF-8" in checks["gateway token"]["detail"] and "claw init" in checks["gateway token"]["fix"]
    # The repair it names works.
    token_file.unlink()
    assert claw(claw_env.env, "init").returncode == 0
    assert run_claw(claw_env.env, "gateway", "token").stdout.strip() == token_file.read_text().strip()


def test_a_damaged_gateway_db_is_one_line_for_agent_and_a_doctor_failure(claw_env: ClawEnv, home: Path) -> None:
    """The red team's partial: `claw agent` answered but printed a usage-ledger traceback; doctor said nothing."""
    claw_env.server.script(text("first"), text("second"))
    assert claw(claw_env.env, "agent", "-m", "hi").returncode == 0
    db = home / "gateway.db"
    damaged = bytearray(db.read_bytes())
    damaged[100:4096] = b"\xde\xad" * 1998  # the first page's b-tree, past the header
    db.write_bytes(bytes(damaged))
    done = claw(claw_env.env, "agent", "-m", "again")
    assert done.returncode == 0 and done.stdout.strip() == "second", done
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"usage not recorded: {db} is damaged (database disk image is malformed); stop the gateway and move it "
        f"aside (`mv {db} {db}.corrupt`): claw starts a new one, without the channel queues, automations and "
        "usage history the old one held"
    ], done.stderr
    check = doctor_json(claw_env.env, expect=1)["gateway db"]
    assert check["status"] == "fail" and str(db) in check["detail"] and f"mv {db} {db}.corrupt" in check["fix"]
    # The repair it names works.
    db.rename(home / "gateway.db.corrupt")
    assert claw(claw_env.env, "agent", "-m", "hi").stderr == ""
    assert doctor_json(claw_env.env)["gateway db"]["status"] == "ok"


def test_stale_temp_files_are_reported_and_fix_deletes_only_the_old(claw_env: ClawEnv, home: Path) -> None:
    sessions = home / "agents" / "main" / "sessions"
    old = sessions / ".sessions.json.0123456789ab.tmp"
    fresh = home / ".config.toml.ba9876543210.tmp"  # a write in progress, maybe in another process
    for temp in (old, fresh):
        temp.write_text("{}")
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))

    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"temp files": "warn"}
    assert str(old) in checks["temp files"]["detail"] and str(fresh) not in checks["temp files"]["detail"]

    done = claw(claw_env.env, "doctor", "--fix")
    assert f"fixed: deleted 1 leftover temp file of {sessions / 'sessions.json'}" in done.stdout
    assert not old.exists() and fresh.exists()


def test_broken_config_fails_naming_key_and_file_and_skips_what_needs_it(claw_env: ClawEnv, home: Path) -> None:
    config = home / "config.toml"
    config.write_text(config.read_text() + '\n[memory]\nchunkTokens = "many"\n')

    done = claw(claw_env.env, "doctor")
    assert done.returncode == 1 and done.stderr == ""
    assert "Traceback" not in done.stdout
    assert done.stdout.splitlines()[-1].endswith(", 1 failed")

    checks = doctor_json(claw_env.env, expect=1)
    assert checks["config"]["status"] == "fail"
    assert str(config) in checks["config"]["detail"] and "memory.chunkTokens" in checks["config"]["detail"]
    assert "`claw config set memory.chunkTokens VALUE`" in checks["config"]["fix"]
    assert str(config) in checks["config"]["fix"]
    for name in NEEDS_CONFIG:
        assert checks[name]["status"] == "warn" and checks[name]["detail"] == "skipped: config does not load"
    assert checks["gateway"]["status"] == checks["sessions"]["status"] == "ok"


def test_config_that_is_not_toml(claw_env: ClawEnv, home: Path) -> None:
    (home / "config.toml").write_text("[agents.defaults\n")
    checks = doctor_json(claw_env.env, expect=1)
    assert checks["config"]["status"] == "fail" and "not valid TOML" in checks["config"]["detail"]


def test_unknown_and_invalid_agent(claw_env: ClawEnv, home: Path) -> None:
    checks = doctor_json(claw_env.env, "--agent", "ghost", expect=1)
    assert checks["config"]["status"] == "fail" and "ghost" in checks["config"]["detail"]
    assert checks["config"]["fix"] == "claw agents add ghost"
    assert checks["workspace"]["detail"] == "skipped: agent 'ghost' is not configured"

    bad = claw(claw_env.env, "doctor", "--agent", "Not An Id")
    assert bad.returncode == 2 and bad.stderr.startswith("claw: invalid agent id") and bad.stderr.count("\n") == 1


def test_no_model_fails_with_the_guidance(claw_env: ClawEnv, home: Path) -> None:
    env = {k: v for k, v in claw_env.env.items() if k != "CLAW_MODEL"}
    checks = doctor_json(env, expect=1)
    assert not_ok(checks) == {"model": "fail"}
    guidance = NoModelError().message
    assert checks["model"]["detail"] == "no model configured for agent main"
    assert checks["model"]["fix"] in guidance and "CLAW_MODEL" in checks["model"]["fix"]
    assert "claw config set agents.defaults.model" in checks["model"]["fix"]


def test_endpoint_not_listening_fails_naming_the_url(claw_env: ClawEnv, home: Path) -> None:
    env = {**claw_env.env, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    checks = doctor_json(env, expect=1)
    assert not_ok(checks) == {"model": "fail"}
    assert "cannot reach http://127.0.0.1:9/v1" in checks["model"]["detail"]
    assert "OPENAI_BASE_URL" in checks["model"]["fix"]


def test_endpoint_refusing_the_key_fails(claw_env: ClawEnv, home: Path) -> None:
    with ScriptedModelServer(models=("test-model",), require_api_key="another-key") as strict:
        env = {**claw_env.env, "OPENAI_BASE_URL": strict.base_url}
        checks = doctor_json(env, expect=1)
    assert f"{strict.base_url} refused the API key (401)" in checks["model"]["detail"]
    assert "OPENAI_API_KEY" in checks["model"]["fix"]
    assert API_KEY not in json.dumps(checks)


def test_model_the_endpoint_does_not_list_is_a_warning(claw_env: ClawEnv, home: Path) -> None:
    env = {**claw_env.env, "CLAW_MODEL": "other-model"}
    checks = doctor_json(env)
    assert not_ok(checks) == {"model": "warn"}
    assert "does not list 'other-model'" in checks["model"]["detail"]
    assert "test-model" in checks["model"]["fix"]


def test_configured_provider_and_fallback_are_each_checked(claw_env: ClawEnv, home: Path) -> None:
    (home / "config.toml").write_text(
        '[agents.defaults]\nmodel = { primary = "local/test-model", fallbacks = ["gone/x"] }\n'
        f'[providers.local]\nbaseUrl = "{claw_env.server.base_url}"\n'
        '[providers.gone]\nbaseUrl = "http://127.0.0.1:9/v1"\n'
    )
    env = {k: v for k, v in claw_env.env.items() if k not in ("CLAW_MODEL", "OPENAI_BASE_URL")}
    done = claw(env, "doctor", "--json")
    checks = json.loads(done.stdout)["checks"]
    models = [c for c in checks if c["name"] in ("model", "fallback")]
    assert [(c["name"], c["status"]) for c in models] == [("model", "ok"), ("fallback", "fail")]
    assert "http://127.0.0.1:9/v1" in models[1]["detail"] and "providers.gone.baseUrl" in models[1]["fix"]


def test_torn_transcript_line_is_a_warning_naming_the_session(claw_env: ClawEnv, home: Path) -> None:
    claw_env.server.script(text("hello back"))
    assert claw(claw_env.env, "agent", "-m", "hello").returncode == 0
    (transcript,) = (home / "agents" / "main" / "sessions").glob("*.jsonl")
    with transcript.open("ab") as out:
        out.write(b'{"role": "user", "content": "cut sho')

    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"sessions": "warn"}
    assert checks["sessions"]["detail"].startswith("agent:main:main: 1 malformed line skipped")
    assert transcript.name in checks["sessions"]["detail"]


def test_quarantined_session_index_is_a_warning(claw_env: ClawEnv, home: Path) -> None:
    corrupt = home / "agents" / "main" / "sessions" / "sessions.json.corrupt-20250102T030405000000Z"
    corrupt.write_text("{not json")
    corrupt.chmod(0o600)  # as the store leaves it: renamed, with the index's mode (others would be warned about)
    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"sessions": "warn"}
    assert str(corrupt) in checks["sessions"]["detail"]


def test_oversized_soul_is_a_warning_naming_it(claw_env: ClawEnv, home: Path) -> None:
    (home / "workspace" / "SOUL.md").write_text("s" * 25_000)
    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"workspace": "warn"}
    assert "SOUL.md is 25,000 chars, over the 20,000 cap" in checks["workspace"]["detail"]
    assert "claw workspace edit soul" in checks["workspace"]["fix"]
    assert "agents.defaults.bootstrapMaxChars" in checks["workspace"]["fix"]


def test_missing_bootstrap_file_is_restored_without_touching_the_others(claw_env: ClawEnv, home: Path) -> None:
    workspace = home / "workspace"
    (workspace / "USER.md").unlink()
    (workspace / "SOUL.md").write_text("my own soul\n")

    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"workspace": "warn"} and "missing USER.md" in checks["workspace"]["detail"]

    done = claw(claw_env.env, "doctor", "--fix")
    assert f"fixed: created USER.md in {workspace} from the template" in done.stdout
    assert (workspace / "USER.md").read_text() == (bundled_dir("workspace-template") / "USER.md").read_text()
    assert (workspace / "SOUL.md").read_text() == "my own soul\n"
    assert not_ok(doctor_json(claw_env.env)) == {}


def test_invalid_skill_is_a_warning_naming_it(claw_env: ClawEnv, home: Path) -> None:
    broken = home / "workspace" / "skills" / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("no frontmatter here\n")
    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"skills": "warn"}
    assert checks["skills"]["detail"].startswith("broken is invalid: ")
    assert checks["skills"]["fix"] == "claw skills check"


def test_overriding_a_bundled_skill_is_not_a_warning(claw_env: ClawEnv, home: Path) -> None:
    mine = home / "workspace" / "skills" / "daily-brief"
    mine.mkdir(parents=True, exist_ok=True)
    (mine / "SKILL.md").write_text("---\nname: daily-brief\ndescription: My own morning brief.\n---\nBody.\n")
    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {}
    assert checks["skills"]["detail"].endswith("overriding another copy: daily-brief")


def test_memory_index_that_cannot_be_opened_is_a_warning(claw_env: ClawEnv, home: Path) -> None:
    index = home / "memory" / "main.sqlite"
    index.parent.mkdir(mode=0o700)
    index.write_bytes(b"this is not a database" * 100)
    index.chmod(0o600)  # as claw creates it
    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"memory index": "warn"}
    assert str(index) in checks["memory index"]["detail"]
    assert checks["memory index"]["fix"].startswith("claw memory index --force")


def test_memory_index_status(claw_env: ClawEnv, home: Path) -> None:
    assert claw(claw_env.env, "memory", "index").returncode == 0
    checks = doctor_json(claw_env.env)
    assert checks["memory index"]["status"] == "ok"
    detail = checks["memory index"]["detail"]
    assert detail.startswith("1 file, ") and "chunk" in detail and "keyword-only" in detail


def test_running_gateway_is_reported(claw_env: ClawEnv, home: Path, tmp_path: Path) -> None:
    with (tmp_path / "gateway.err").open("w") as err:
        gateway = subprocess.Popen(
            [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"],
            env=claw_env.env, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not (home / "gateway.json").exists():
            assert gateway.poll() is None and time.monotonic() < deadline, (tmp_path / "gateway.err").read_text()
            time.sleep(0.05)
        url = json.loads((home / "gateway.json").read_text())["url"]
        checks = doctor_json(claw_env.env)
    finally:
        gateway.terminate()
        gateway.wait(30)
    assert not_ok(checks) == {}
    assert checks["gateway"]["detail"].startswith(f"running at {url} (pid {gateway.pid}")


def test_runtime_file_of_a_gateway_that_does_not_answer(claw_env: ClawEnv, home: Path) -> None:
    runtime = home / "gateway.json"
    info = {"pid": os.getpid(), "url": "ws://127.0.0.1:9/", "bind": "127.0.0.1", "port": 9,
            "startedAt": time.time(), "version": "0"}  # fmt: skip
    runtime.write_text(json.dumps(info))
    runtime.chmod(0o600)  # as claw writes it
    checks = doctor_json(claw_env.env)
    assert not_ok(checks) == {"gateway": "warn"}
    assert "ws://127.0.0.1:9/" in checks["gateway"]["detail"] and "did not answer" in checks["gateway"]["detail"]
    assert str(runtime) in checks["gateway"]["fix"]

    info["pid"] = 2**22 + 1  # beyond pid_max: a gateway that is gone
    runtime.write_text(json.dumps(info))
    checks = doctor_json(claw_env.env)
    assert checks["gateway"]["status"] == "ok" and "ignored" in checks["gateway"]["detail"]


def test_before_init_says_run_init(claw_env: ClawEnv) -> None:
    claw_env.home.rmdir()
    checks = doctor_json(claw_env.env, expect=1)
    assert checks["claw home"]["status"] == "fail" and checks["claw home"]["fix"] == "claw init"
    assert checks["workspace"]["status"] == "fail" and checks["workspace"]["fix"] == "claw init"
    assert not claw_env.home.exists()  # checking created nothing
