"""OpenClaw's own CLI and TUI against a real claw gateway: the checks issue 16 asks for, run by hand.

Run from the repo root:  python -m bench.openclaw_clients  [--clients-script PATH]

Installs OpenClaw's clients with the workplace's script (default ../shared/tools/openclaw-clients.sh; a user's
clone has no such folder, which is why this is a bench and not a test) unless they are already in the cache,
then starts `claw gateway run --port 0` on a temporary CLAW_HOME with the scripted model server, and checks:

- `openclaw gateway call health` and `openclaw gateway call status` answer;
- `openclaw status` (with a client config in remote mode naming the gateway) reports it reachable;
- `openclaw agent -m …` prints the reply;
- `openclaw tui` in tmux: a message sent shows the streamed reply, once; after `/verbose on`, a turn in which
  the model calls claw's `read` tool shows the tool's card and the answer after it; a turn in which the model
  calls `exec` raises the TUI's approval prompt, "Allow once" runs the command (its file appears in the
  workspace); and `/sessions` lists the session.

And the reverse: a real `openclaw gateway run` (its config pointing its model at the same scripted server)
with claw's clients attached: `claw agent -m … --url` prints the reply, and `claw chat --url` in tmux sends a
message and shows the reply.

Each check prints one PASS or FAIL line, and the command ends with SUMMARY lines (exit 1 on a failure).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.report import Target, finish, machine_line
from tests.support.model_server import RecordedRequest, Reply, ScriptedModelServer, text, tool_call

REPO = Path(__file__).resolve().parents[1]
TOKEN = "bench-openclaw-clients-token-7f3a"
REPLY = "Hello from claw, to OpenClaw's client."
TUI_REPLY = "Hello from claw, to OpenClaw's TUI."
TOOL_REPLY = "The notes file says: remember the milk."
EXEC_REPLY = "The approved command ran."
EXEC_FILE = "approved-by-tui.txt"


def _answer(request: RecordedRequest) -> Reply:
    last = request.messages[-1]
    if last.get("role") == "tool":
        calls = request.messages[-2].get("tool_calls") or [{}]
        return text(EXEC_REPLY if calls[0].get("function", {}).get("name") == "exec" else TOOL_REPLY)
    if "use the read tool" in str(last.get("content", "")):
        return tool_call("read", {"path": "notes.md"})
    if "use the exec tool" in str(last.get("content", "")):
        return tool_call("exec", {"command": f"touch {EXEC_FILE}"})
    if "in the tui" in str(last.get("content", "")):
        return text(TUI_REPLY)
    return text(REPLY)


def install(script: Path) -> dict[str, str]:
    """The environment OpenClaw's clients run with (PATH with Node 24 and the openclaw bin)."""
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"installing OpenClaw's clients failed:\n{done.stderr[-2000:]}")
    exports = dict(line.removeprefix("export ").split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    path = exports["PATH"].replace("$PATH", os.environ.get("PATH", ""))
    interop = exports["CLAW_INTEROP"]
    home = Path(interop) / "client-home"
    return {**os.environ, "PATH": path, "HOME": str(home), "OPENCLAW_STATE_DIR": str(home / ".openclaw")}


OPENCLAW_PORT = 18999
OPENCLAW_CONFIG = """{
  gateway: { mode: "local", port: %(port)d, bind: "loopback", auth: { mode: "token", token: "%(token)s" } },
  agents: { defaults: { model: { primary: "scripted/test-model" } } },
  models: { mode: "merge", providers: { scripted: { baseUrl: "%(base)s", apiKey: "bench", api: "openai-completions",
    models: [{ id: "test-model", name: "Scripted", reasoning: false, input: ["text"], contextWindow: 32000,
               maxTokens: 4096 }] } } },
}
"""


STATUS_CONFIG = """{ gateway: { mode: "remote", remote: { url: "%(url)s", token: "%(token)s" } } }
"""
"""The client config `openclaw status` needs before it probes a gateway (see README)."""


def wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.25)
    return False


class Tui:
    """A terminal app (`openclaw tui`, `claw chat`) in a detached tmux session; `screen()` is what it shows now."""

    def __init__(self, env: dict[str, str], command: str, name: str = "tui") -> None:
        self.name = f"claw-bench-{name}-{os.getpid()}"
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", "160", "-y", "48", command],
                       env=env, check=True)  # fmt: skip

    def screen(self) -> str:
        found = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name, "-S", "-200"], capture_output=True,
                               text=True)  # fmt: skip
        return found.stdout

    def type(self, line: str) -> None:
        """Type `line` and Enter once the TUI is idle (it keeps a line typed during a run in its editor)."""
        wait_for(lambda: "| idle" in self.screen(), 60)
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", line], check=True)
        time.sleep(0.5)  # typed this fast, the text and its Enter would read as one paste (a newline, not a send)
        subprocess.run(["tmux", "send-keys", "-t", self.name, "Enter"], check=True)

    def keys(self, *names: str) -> None:
        """Press keys (tmux names: Up, Enter …) one after another."""
        for name in names:
            subprocess.run(["tmux", "send-keys", "-t", self.name, name], check=True)
            time.sleep(0.3)

    def tail(self, lines: int = 12) -> str:
        """The screen's last non-blank lines, for a failed check."""
        return "\n    ".join([line for line in self.screen().splitlines() if line.strip()][-lines:])

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def reverse(client_env: dict[str, str], claw_env: dict[str, str], base_url: str, tmp: Path,
            check: Callable[[str, bool, str], None]) -> None:  # fmt: skip
    """claw's clients against a real `openclaw gateway run` on the same scripted model."""
    if _listening(OPENCLAW_PORT):
        check("openclaw gateway run starts", False, f"port {OPENCLAW_PORT} is taken (another gateway?)")
        return
    state = tmp / "openclaw-home" / ".openclaw"
    state.mkdir(parents=True)
    (state / "openclaw.json").write_text(OPENCLAW_CONFIG % {"port": OPENCLAW_PORT, "token": TOKEN, "base": base_url})
    oc = {**client_env, "HOME": str(state.parent), "OPENCLAW_STATE_DIR": str(state)}
    log = (tmp / "openclaw-gateway.log").open("w")
    gateway = subprocess.Popen(["openclaw", "gateway", "run", "--port", str(OPENCLAW_PORT)], env=oc,
                               stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    url = f"ws://127.0.0.1:{OPENCLAW_PORT}"
    chat: Tui | None = None
    try:
        ready = wait_for(lambda: _listening(OPENCLAW_PORT), 120)
        started = "listening" if ready else (tmp / "openclaw-gateway.log").read_text()[-300:]
        check("openclaw gateway run starts", ready, started)
        # No model of its own: attached, the console must take the agent's model from OpenClaw's agents.list.
        claw = {k: v for k, v in claw_env.items() if k not in ("CLAW_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY")}
        claw["CLAW_HOME"] = str(tmp / "claw-client-home")
        subprocess.run([sys.executable, "-m", "claw", "init"], env=claw, cwd=REPO, check=True, capture_output=True)
        deadline = time.monotonic() + 90
        while True:  # OpenClaw's gateway listens before it is ready, and says "gateway starting; retry shortly"
            done = subprocess.run([sys.executable, "-m", "claw", "agent", "-m", "hello", "--url", url], env=claw,
                                  cwd=REPO, capture_output=True, text=True, timeout=120)  # fmt: skip
            if "retry shortly" not in done.stderr or time.monotonic() > deadline:
                break
            time.sleep(2)
        check("claw agent --url on openclaw's gateway", done.returncode == 0 and REPLY in done.stdout,
              (done.stdout or done.stderr).strip()[-160:])  # fmt: skip
        exports = " ".join(f"{k}={v}" for k, v in claw.items() if k.startswith(("CLAW_", "PYTHONPATH")))
        chat = Tui(claw, f"cd {REPO} && env {exports} {sys.executable} -m claw chat --url {url}; sleep 60", name="chat")
        wait_for(lambda: "attached to" in chat.screen(), 60)
        before = chat.screen().count(REPLY)
        subprocess.run(["tmux", "send-keys", "-t", chat.name, "-l", "say hello"], check=True)
        time.sleep(0.5)
        subprocess.run(["tmux", "send-keys", "-t", chat.name, "Enter"], check=True)
        shown = wait_for(lambda: chat.screen().count(REPLY) > before, 60)
        check("claw chat --url on openclaw's gateway: the reply shows", shown, "reply shown" if shown else chat.tail())
    finally:
        if chat is not None:
            chat.close()
        gateway.terminate()
        gateway.wait(60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients-script", type=Path, default=REPO.parent / "shared" / "tools" / "openclaw-clients.sh")
    args = parser.parse_args()
    print(machine_line())
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is needed for the TUI checks (apt-get install -y tmux)")
    client_env = install(args.clients_script)
    results: list[tuple[str, bool, str]] = []

    def check(name: str, ok: bool, detail: str) -> None:
        results.append((name, ok, detail))
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")

    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(instant=True, default=_answer) as model:
        home = Path(tmp) / "home"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_"))}
        env.update(CLAW_HOME=str(home), OPENAI_BASE_URL=model.base_url, OPENAI_API_KEY="bench", CLAW_MODEL="m",
                   CLAW_GATEWAY_TOKEN=TOKEN, PYTHONPATH=str(REPO))  # fmt: skip
        subprocess.run([sys.executable, "-m", "claw", "init"], env=env, cwd=REPO, check=True, capture_output=True)
        (home / "workspace").mkdir(exist_ok=True)
        (home / "workspace" / "notes.md").write_text("remember the milk\n", encoding="utf-8")
        log = (home / "gateway.err").open("w")
        gateway = subprocess.Popen([sys.executable, "-m", "claw", "gateway", "run", "--port", "0"], env=env,
                                   cwd=REPO, stdout=subprocess.DEVNULL, stderr=log)  # fmt: skip
        tui: Tui | None = None
        try:
            if not wait_for(lambda: (home / "gateway.json").exists(), 60):
                raise SystemExit(f"the gateway did not start:\n{(home / 'gateway.err').read_text()}")
            url = json.loads((home / "gateway.json").read_text())["url"]
            oc = {**client_env, "OPENCLAW_GATEWAY_URL": url, "OPENCLAW_GATEWAY_TOKEN": TOKEN}

            def openclaw(*argv: str) -> subprocess.CompletedProcess[str]:
                return subprocess.run(["openclaw", *argv], env=oc, capture_output=True, text=True, timeout=120)

            for method in ("health", "status"):
                done = openclaw("gateway", "call", method)
                shown = (done.stdout or done.stderr)[:120].strip()
                check(f"openclaw gateway call {method}", done.returncode == 0, shown)
            # Without a config file `openclaw status` takes itself for a fresh install and probes nothing.
            state = Path(tmp) / "status-client" / ".openclaw"
            state.mkdir(parents=True)
            (state / "openclaw.json").write_text(STATUS_CONFIG % {"url": url, "token": TOKEN})
            status_env = {k: v for k, v in client_env.items() if not k.startswith("OPENCLAW_GATEWAY_")}
            status_env.update(HOME=str(state.parent), OPENCLAW_STATE_DIR=str(state))
            done = subprocess.run(["openclaw", "status"], env=status_env, capture_output=True, text=True, timeout=120)
            line = next((row for row in done.stdout.splitlines() if "Gateway " in row and "ws://" in row), done.stderr)
            check("openclaw status", done.returncode == 0 and "reachable" in line and "unreachable" not in line,
                  " ".join(line.replace("│", " ").split())[:140])  # fmt: skip
            done = openclaw("agent", "-m", "hello")
            check("openclaw agent -m", done.returncode == 0 and REPLY in done.stdout,
                  (done.stdout or done.stderr).strip()[-160:])  # fmt: skip

            tui = Tui(oc, f"openclaw tui --url {url} --token {TOKEN}")
            ready = wait_for(lambda: "connected" in tui.screen().lower() or "agent:main" in tui.screen(), 60)
            check("openclaw tui connects", ready, "connected" if ready else tui.tail())
            tui.type("say hello in the tui")
            check("tui: a message shows the streamed reply", wait_for(lambda: TUI_REPLY in tui.screen(), 60),
                  "reply shown" if TUI_REPLY in tui.screen() else tui.tail())  # fmt: skip
            wait_for(lambda: "| idle" in tui.screen(), 30)
            time.sleep(1)  # the turn's history reload, where a turn it cannot match to its live copy doubles
            turns = [line.strip() for line in tui.screen().splitlines()].count("say hello in the tui")
            check("tui: the turn shows once", turns == 1 and tui.screen().count(TUI_REPLY) == 1,
                  f"the message {turns}×, the reply {tui.screen().count(TUI_REPLY)}×")  # fmt: skip
            tui.type("/verbose on")
            wait_for(lambda: "verbose on" in tui.screen(), 20)
            tui.type("please use the read tool on notes.md")
            shown = wait_for(lambda: TOOL_REPLY in tui.screen(), 60)
            card = "Read" in tui.screen() and "notes.md" in tui.screen()
            check("tui: a tool call shows its card, then the answer after it", shown and card,
                  "card and answer shown" if shown and card else tui.tail())  # fmt: skip
            tui.type("please use the exec tool")
            asked = wait_for(lambda: "Allow once" in tui.screen(), 60)
            if asked:
                tui.keys("Up", "Up", "Enter")  # the prompt starts on Deny; a move to Allow once arms it
            ran = wait_for(lambda: (home / "workspace" / EXEC_FILE).exists() and EXEC_REPLY in tui.screen(), 60)
            check(
                "tui: an exec approval answered in the TUI's prompt runs the command",
                asked and ran,
                "asked, allowed once, ran" if ran else ("asked, not run: " if asked else "no prompt: ") + tui.tail(),
            )
            tui.type("/sessions")
            listed = wait_for(lambda: "just now" in tui.screen() or "agent:main:main" in tui.screen(), 30)
            check("tui: /sessions lists the session", listed, "listed" if listed else tui.tail())
        finally:
            if tui is not None:
                tui.close()
            gateway.terminate()
            gateway.wait(60)
        reverse(client_env, env, model.base_url, Path(tmp), check)
    failed = sum(1 for _name, ok, _detail in results if not ok)
    return finish([Target("openclaw_clients_failed_checks", float(failed), 1, "count")])


if __name__ == "__main__":
    sys.exit(main())
