"""The console under a fast stream, and how fast `claw chat` shows its first frame.

Run from the repo root:  python -m bench.tui_stream  [--tokens 4000] [--rate 1000] [--runs 3] [--starts 5]

(1) Stream: the real app (`make_app`, headless `run_test`, 120×40) on an in-process gateway,
    the real `openai` client and `ScriptedModelServer` on 127.0.0.1, which streams a Markdown
    reply of `--tokens` words (paragraphs, lists, code blocks), one word per SSE delta, one delta
    every 1/`--rate` s. Measured per run:
      - delivered rate: tokens / (server's first byte → last byte);
      - CPU: `time.thread_time()` of the main thread (the app *and* the in-process gateway and
        openai client share it; the model server runs in its own thread, not counted) from send
        to the final frame, and the process's CPU time over the same span;
      - lag: the app receiving the last token → the first frame whose screen shows the reply's
        last line (frames are stamped as the compositor hands them to the driver; the headless
        driver writes nothing, so the bench renders each frame to terminal segments itself to
        keep that cost in);
      - complete: the Markdown widget holds the exact reply, every code block became a fence
        block, and the last line is on screen.
(2) First frame: `python -m claw chat` in a tmux pane of its own (120×40), from spawning it to
    the first capture-pane that shows the status bar, `--starts` times (skipped without tmux).

Targets: first frame p50 under 1 s (issue 3); final-frame lag p50 under 250 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.corpus import WORDS
from bench.report import Target, finish, machine_line, median

MODEL = "test-model"
SIZE = (120, 40)
LAST_LINE = "That is the end of the reply."


def make_reply(tokens: int, seed: int = 7) -> tuple[str, int]:
    """A Markdown reply of about `tokens` words, and how many fenced code blocks it has."""
    rng = random.Random(seed)
    parts: list[str] = []
    count = fences = 0
    while count < tokens - 8:
        kind = rng.random()
        if kind < 0.15:
            body = "\n".join(f"    value_{i} = compute({rng.choice(WORDS)!r}, {i})" for i in range(rng.randint(3, 8)))
            parts.append(f"```python\ndef step():\n{body}\n    return value_0\n```")
            count += len(parts[-1].split())
            fences += 1
        elif kind < 0.35:
            items = [" ".join(rng.choices(WORDS, k=rng.randint(4, 10))) for _ in range(rng.randint(2, 5))]
            parts.append("\n".join(f"- {item}" for item in items))
            count += sum(len(i.split()) + 1 for i in items)
        else:
            words = rng.choices(WORDS, k=rng.randint(30, 70))
            words[0] = words[0].capitalize()
            words[rng.randrange(len(words))] = f"**{rng.choice(WORDS)}**"
            parts.append(" ".join(words) + ".")
            count += len(words)
    parts.append(LAST_LINE)
    return "\n\n".join(parts), fences


SERVER = """
import json, sys, time
from tests.support.model_server import CHAT_PATH, ScriptedModelServer, slow
reply, delay = open(sys.argv[1], encoding="utf-8").read(), float(sys.argv[2])
with ScriptedModelServer(models=("test-model",)) as server:
    server.script(slow(reply, delay))
    print(server.base_url, flush=True)
    server.wait_for_requests(1, timeout=60, path=CHAT_PATH)  # the console may ask for /v1/models first
    while server.chat_requests[0].finished_at is None:
        time.sleep(0.01)
    r = server.chat_requests[0]
    print(json.dumps({"first": r.first_byte_at, "last": r.finished_at}), flush=True)
    sys.stdin.read()  # until the bench is done with us
"""


class ModelServerProcess:
    """The scripted model server in a process of its own, so it neither shares the app's GIL nor its CPU time."""

    def __init__(self, reply: str, rate: float, workdir: Path) -> None:
        script = workdir / "reply.md"
        script.write_text(reply, encoding="utf-8")
        repo = Path(__file__).resolve().parents[1]
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(script), str(1.0 / rate)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=repo,
            env={**os.environ, "PYTHONPATH": str(repo)},
        )  # fmt: skip
        assert self.proc.stdout is not None
        self.base_url = self.proc.stdout.readline().strip()

    def delivery(self) -> tuple[float, float]:
        """(first byte, last byte) of the streamed reply, in the server's perf_counter seconds."""
        assert self.proc.stdout is not None
        times = json.loads(self.proc.stdout.readline())
        return times["first"], times["last"]

    def close(self) -> None:
        self.proc.communicate("", timeout=10)


async def stream_once(tokens: int, rate: float) -> dict[str, float]:
    from claw.client.local import LocalClient
    from claw.compose import build_gateway
    from claw.config import load_config
    from claw.paths import Paths
    from claw.tui.app import make_app
    from claw.tui.run_view import RunView
    from claw.tui.widgets.conversation.assistant_message import AssistantMessage

    reply, fences = make_reply(tokens)
    marks: dict[str, float] = {}
    frames: list[float] = []
    with tempfile.TemporaryDirectory() as home:
        server = ModelServerProcess(reply, rate, Path(home))
        os.environ.update(CLAW_HOME=home, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="bench", CLAW_MODEL=MODEL)
        paths = Paths.from_env()
        client = LocalClient(build_gateway(paths, load_config(paths)), channel="tui")
        app = make_app(client)

        display = app._display  # noqa: SLF001 — the one place every frame passes through

        def stamped_display(screen: Any, renderable: Any) -> None:
            if renderable is not None:
                frames.append(time.perf_counter())
                if hasattr(renderable, "render_segments"):
                    renderable.render_segments(app.console)  # what a real terminal driver would do
            display(screen, renderable)

        app._display = stamped_display  # type: ignore[method-assign]
        apply = RunView.apply

        async def stamped_apply(view: RunView, event: Any) -> None:
            if event.stream == "assistant":
                marks["last_token"] = time.perf_counter()
            await apply(view, event)

        RunView.apply = stamped_apply  # type: ignore[method-assign]
        try:
            async with app.run_test(size=SIZE) as pilot:
                while app.chat.status.model != MODEL:
                    await pilot.pause(0.05)
                cpu0, proc0 = time.thread_time(), time.process_time()
                app.chat.prompt.input.set_text("write the long one")
                await pilot.press("enter")
                while app.chat.runs or not app.chat.conversation.query(AssistantMessage):
                    await pilot.pause(0.02)
                final = await _final_frame(pilot, app, frames, marks["last_token"])
                cpu, proc = time.thread_time() - cpu0, time.process_time() - proc0
                # A long reply is shown as several Markdown widgets (cut between blocks): join them.
                messages = app.chat.conversation.query(AssistantMessage)
                fence_blocks = sum(len(m.markdown.query("MarkdownFence")) for m in messages)
                complete = "".join(m.text for m in messages) == reply and fence_blocks == fences
                chunks = len(messages)
            first_byte, last_byte = server.delivery()
        finally:
            RunView.apply = apply  # type: ignore[method-assign]
            await client.close()
            server.close()
    delivered = tokens / (last_byte - first_byte)
    lag = final - marks["last_token"]
    return {"rate": delivered, "cpu": cpu, "proc": proc, "lag": lag, "complete": complete, "chunks": chunks}


async def _final_frame(pilot: Any, app: Any, frames: list[float], last_token: float) -> float:
    """The stamp of the first frame after `last_token` whose screen shows the reply's last line."""
    checked = 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        later = [stamp for stamp in frames if stamp >= last_token]
        for stamp in later[checked:]:
            checked += 1
            if LAST_LINE in _screen(app):
                return stamp
        await pilot.pause(0.01)
    raise RuntimeError("the reply's last line never reached the screen")


def _screen(app: Any) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())  # noqa: SLF001


def first_frames(starts: int) -> list[float]:
    """Seconds from spawning `claw chat` in a tmux window to its status bar on screen, `starts` times.

    The tmux server is started first (with an idle window), so its own start-up is not counted."""
    out: list[float] = []
    repo = Path(__file__).resolve().parents[1]
    for _ in range(starts):
        tmux = ["tmux", "-L", f"claw-bench-{uuid.uuid4().hex[:8]}"]
        with tempfile.TemporaryDirectory() as home:
            env = {
                **os.environ,
                "CLAW_HOME": home,
                "CLAW_MODEL": MODEL,
                "OPENAI_API_KEY": "bench",
                "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
                "PYTHONPATH": str(repo),
                "TERM": "xterm-256color",
            }
            subprocess.run([*tmux, "new-session", "-d", "-x", "120", "-y", "40", "-s", "b", "sleep 600"], env=env)
            try:
                began = time.perf_counter()
                command = f"cd {repo} && {sys.executable} -m claw chat"
                subprocess.run([*tmux, "new-window", "-t", "b:", "-n", "chat", command], env=env, check=True)
                while time.perf_counter() - began < 20:
                    shown = subprocess.run(
                        [*tmux, "capture-pane", "-p", "-t", "b:chat"], capture_output=True, text=True
                    )
                    if "main · main" in shown.stdout:
                        out.append(time.perf_counter() - began)
                        break
                    time.sleep(0.01)
                else:
                    raise RuntimeError("claw chat showed no status bar within 20 s")
            finally:
                subprocess.run([*tmux, "kill-server"], capture_output=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=4000)
    parser.add_argument("--rate", type=float, default=1000.0, help="tokens per second the model streams")
    parser.add_argument("--runs", type=int, default=3, help="stream runs (0: first frame only)")
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    print(machine_line())
    results = [asyncio.run(stream_once(args.tokens, args.rate)) for _ in range(args.runs)]
    for n, r in enumerate(results, 1):
        print(
            f"stream run {n}: {args.tokens} tokens at {r['rate']:.0f} tok/s delivered; complete={r['complete']} "
            f"({r['chunks']:.0f} Markdown widgets); "
            f"main-thread CPU {r['cpu']:.2f} s, process CPU {r['proc']:.2f} s; "
            f"last token → final frame {r['lag'] * 1000:.0f} ms"
        )
    targets = (
        [Target("tui stream final-frame lag p50", median([r["lag"] for r in results]), 0.25, "s")] if results else []
    )
    if not all(r["complete"] for r in results):
        print("SUMMARY tui stream complete: NO (the reply did not render completely) MISSED")
        return 1
    if shutil.which("tmux"):
        starts = first_frames(args.starts)
        print("first frame of `claw chat` (s): " + ", ".join(f"{s:.3f}" for s in starts))
        targets.append(Target("tui first frame p50", median(starts), 1.0, "s"))
    else:
        print("first frame: skipped (tmux is not installed)")
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
