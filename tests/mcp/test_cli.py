"""`claw mcp …` as a user runs it: add, ls, test, tools, prompts, rm, import; and the doctor's check."""

from __future__ import annotations

import json
import sys
import tomllib

from tests.mcp.conftest import SERVERS
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw


def test_add_test_tools_ls_rm(claw_env: ClawEnv) -> None:
    env = claw_env.env
    added = run_claw(env, "mcp", "add", "basic", "--", sys.executable, str(SERVERS), "basic")
    assert added.returncode == 0, added.stderr
    config = tomllib.loads((claw_env.home / "config.toml").read_text())
    assert config["mcp"]["servers"]["basic"] == {"command": sys.executable, "args": [str(SERVERS), "basic"]}

    tested = run_claw(env, "mcp", "test", "basic", "--json")
    report = json.loads(tested.stdout)
    assert report["state"] == "up" and "echo" in report["tools"] and report["startSeconds"] > 0

    tools = json.loads(run_claw(env, "mcp", "tools", "basic", "--json").stdout)
    assert {"basic__echo", "basic__add"} <= {t["name"] for t in tools}
    header, *lines = run_claw(env, "mcp", "tools", "basic").stdout.splitlines()
    at = header.index("DESCRIPTION")  # every description starts in the same column
    assert header.startswith("TOOL") and len(lines) == len(tools)
    assert all(line[at - 2 : at] == "  " and line[at] != " " for line in lines), lines
    rows = json.loads(run_claw(env, "mcp", "ls", "--json").stdout)
    assert [(r["name"], r["transport"]) for r in rows] == [("basic", "stdio")]
    assert run_claw(env, "mcp", "prompts", "basic").stdout.strip() == "summarize  Ask for a summary of a topic."
    assert run_claw(env, "mcp", "resources", "basic").stdout.strip() == "None."

    again = run_claw(env, "mcp", "add", "basic", "--url", "http://127.0.0.1:1/mcp")
    assert again.returncode == 2 and "exists" in again.stderr
    assert run_claw(env, "mcp", "rm", "basic").returncode == 0
    assert "basic" not in tomllib.loads((claw_env.home / "config.toml").read_text()).get("mcp", {}).get("servers", {})


def test_a_server_that_cannot_start_fails_the_test_in_one_line(claw_env: ClawEnv) -> None:
    run_claw(claw_env.env, "mcp", "add", "gone", "--", "/nonexistent/mcp-server")
    done = run_claw(claw_env.env, "mcp", "test", "gone")
    assert done.returncode == 1
    assert done.stdout.splitlines() == ["gone: failed to start: cannot start the command: "
                                        "'/nonexistent/mcp-server' is not on PATH"]  # fmt: skip
    assert "Traceback" not in done.stderr and done.stderr.splitlines()[-1] == "claw: MCP server gone did not start"


def test_import_keeps_secrets_out_of_the_config(claw_env: ClawEnv, tmp_path) -> None:
    desktop = {
        "mcpServers": {
            "github": {"command": "npx", "args": ["-y", "@x/server-github"],
                       "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdefabcdef", "LOG_LEVEL": "info"}},
            "tracker": {"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer s3cret-value"}},
            "broken": {"args": []},
        }
    }
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps(desktop))
    done = run_claw(claw_env.env, "mcp", "import", str(source))
    assert done.returncode == 0, done.stderr
    text = (claw_env.home / "config.toml").read_text()
    assert "ghp_" not in text and "s3cret" not in text
    servers = tomllib.loads(text)["mcp"]["servers"]
    assert servers["github"]["envFrom"] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "GITHUB_PERSONAL_ACCESS_TOKEN"}
    assert servers["github"]["env"] == {"LOG_LEVEL": "info"}
    assert servers["tracker"]["headersEnv"] == {"Authorization": "MCP_TRACKER_AUTHORIZATION"}
    assert "broken" not in servers and "skipped broken" in done.stdout
    assert "MCP_TRACKER_AUTHORIZATION" in done.stdout


def test_doctor_names_a_missing_variable(claw_env: ClawEnv) -> None:
    run_claw(claw_env.env, "mcp", "add", "s", "--env-from", "TOKEN=NOT_SET_ANYWHERE", "--", sys.executable)
    done = run_claw(claw_env.env, "doctor", "--json")
    findings = {f["name"]: f for f in json.loads(done.stdout)["checks"]}
    assert findings["mcp"]["status"] == "fail" and "$NOT_SET_ANYWHERE" in findings["mcp"]["detail"]
