"""`kill -9` of `claw agent -m` mid-stream, 20 times at random offsets: every killed turn is recorded.

Each trial's process is killed once it has shown a random number of the reply's characters (none: as
soon as its request reached the model). The process of the next trial, started after the kill, is
what finds the dead turn, so each trial is checked when that process's request reaches the model:
by then the killed turn must be closed in the transcript with an `interrupted` entry holding the text
that was saved (all of what was shown but the last few KB), the index's `messageCount` must match
the transcript, and the request must not hold two user messages in a row. The replies never finish
(the model stalls after its text), so a kill always lands mid-turn, wherever the offset falls.

Trials run in two sessions at once, one process after another in each, to keep the test within a
minute on a loaded two-core machine: a process's start-up, not the stream, is most of a trial.
Set KILL_TRIALS_SEED to replay a failing run's offsets (the seed is in every failure message).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from claw.agent.partial_reply import SAVE_CHARS
from claw.store.transcript import Transcript
from tests.support.fixtures import ClawEnv
from tests.support.model_replies import Completion, RecordedRequest, Reply
from tests.support.model_server import text
from tests.support.processes import REPO, run_claw, wait_until
from tests.support.session_index import read_index
from tests.support.waiting import read_until

TRIALS = 20
LANES = 2
CHUNK = 300  # characters per streamed delta
DELAY = 0.03  # seconds between deltas: 7,200 characters in about 0.7 s


def _reply(message: str) -> str:
    return "".join(f"<{message}:{n:03d}>".ljust(CHUNK // 4, ".") for n in range(96))


def _answer(request: RecordedRequest) -> Reply:
    """A trial's reply streams and then stalls, never finishing; the last process's comes back whole."""
    message = request.messages[-1]["content"]
    if isinstance(message, str) and message.startswith("trial "):
        return Completion(content=_reply(message), chunk=CHUNK, delay_per_chunk=DELAY, hang=True)
    return text(f"done with {message}")  # the final turn (or a memory flush, were one ever due)


@dataclass(frozen=True, slots=True)
class Killed:
    message: str
    shown: str  # the reply's text on the process's stdout when it was killed


class Lane:
    """One session's run of trials: start a process, wait for its request, check the trial before, kill it."""

    def __init__(self, claw_env: ClawEnv, n: int, trials: int, rng: random.Random, seed: int) -> None:
        self.env = {**claw_env.env, "PYTHONPATH": str(REPO)}
        self.server = claw_env.server
        self.session = f"agent:main:kill{n}"
        self.sessions_dir = claw_env.home / "agents" / "main" / "sessions"
        self.name, self.trials, self.rng, self.seed = n, trials, rng, seed

    def run(self) -> None:
        previous: Killed | None = None
        for k in range(self.trials + 1):
            message = f"final {self.name}" if k == self.trials else f"trial {self.name}-{k}"
            proc = subprocess.Popen(
                [sys.executable, "-m", "claw", "agent", "-m", message, "--session", self.session],
                env=self.env,
                cwd=REPO,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            try:
                request = wait_until(lambda m=message: self._request(m), timeout=90, what=f"the request of {message}")
                if previous is not None:
                    self._check_recorded(previous, message, request, final=k == self.trials)
                if k == self.trials:
                    out, err = proc.communicate(timeout=60)
                    assert proc.returncode == 0 and out.strip() == f"done with {message}", err
                    self._check_finished(message)
                    return
                previous = self._kill(proc, message)
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.communicate(timeout=30)  # reaps it and closes its pipes (nothing left after the last)

    def _request(self, message: str) -> RecordedRequest | None:
        return next((r for r in self.server.chat_requests if r.messages[-1]["content"] == message), None)

    def _kill(self, proc: subprocess.Popen[str], message: str) -> Killed:
        offset = self.rng.randint(0, len(_reply(message)))  # characters shown before the kill
        assert proc.stdout is not None
        shown = ""
        if offset:
            shown = read_until(proc.stdout, lambda out: len(out) >= offset, timeout=60, what=f"{offset} characters")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        return Killed(message, shown)

    def _entries(self) -> list[dict[str, Any]]:
        index = read_index(self.sessions_dir)
        return Transcript(self.sessions_dir / f"{index[self.session]['sessionId']}.jsonl").read()

    def _message_count(self) -> int:
        return int(read_index(self.sessions_dir)[self.session]["messageCount"])

    def _check_recorded(self, killed: Killed, message: str, request: RecordedRequest, *, final: bool) -> None:
        why = f"{killed.message} killed after {len(killed.shown)} characters (KILL_TRIALS_SEED={self.seed})"
        reply = _reply(killed.message)
        assert reply.startswith(killed.shown), why
        count = self._message_count()  # read before the transcript, so it cannot be ahead of what is read
        entries = self._entries()
        start = next(i for i, e in enumerate(entries) if e.get("content") == killed.message)
        nxt = next(i for i, e in enumerate(entries) if e.get("content") == message)
        between = entries[start + 1 : nxt]
        assert between and between[-1].get("interrupted") is True, f"nothing closed the turn: {why}"
        *partials, closing = between
        assert all(e.get("type") == "partial" for e in partials), (why, partials)
        assert closing["reason"] == "exited", (why, closing)
        saved = closing["content"]
        assert saved == "".join(e["text"] for e in partials), why
        assert reply.startswith(saved), why
        assert len(saved) > len(killed.shown) - SAVE_CHARS, why  # at most the last few KB shown were lost
        # The index was recounted when the turn was closed, before this process's own turn began (the last
        # process's turn, which finishes, may have been recorded since).
        recounted = sum(1 for e in entries[:nxt] if "role" in e)
        assert count == recounted or (final and count == sum(1 for e in entries if "role" in e)), (why, count)

        sent = request.messages
        roles = [m["role"] for m in sent]
        assert not any(a == b == "user" for a, b in zip(roles, roles[1:], strict=False)), (why, roles)
        (killed_at,) = [i for i, m in enumerate(sent) if m["content"] == killed.message]
        told = sent[killed_at + 1]
        assert told["role"] == "assistant" and told["content"].startswith(saved), why
        assert "[This reply is incomplete" in told["content"] or "[No reply" in told["content"], why

    def _check_finished(self, message: str) -> None:
        entries = self._entries()
        assert entries[-1]["role"] == "assistant" and entries[-1]["content"] == f"done with {message}"
        assert not entries[-1].get("interrupted")
        assert sum(1 for e in entries if e.get("interrupted")) == self.trials
        assert self._message_count() == sum(1 for e in entries if "role" in e)


@pytest.mark.timeout(300)
def test_killed_turns_are_recorded_and_the_next_turn_is_told(claw_env: ClawEnv) -> None:
    seed = int(os.environ.get("KILL_TRIALS_SEED") or time.time_ns() % 1_000_000)
    # A modern window, so ten trials' worth of history never makes a turn flush memory or compact first.
    (claw_env.home / "config.toml").write_text('[models."test-model"]\ncontextWindow = 128000\n')
    claw_env.server.default = _answer
    lanes = [Lane(claw_env, n, TRIALS // LANES, random.Random(seed * 10 + n), seed) for n in range(LANES)]
    with ThreadPoolExecutor(LANES) as pool:
        for done in [pool.submit(lane.run) for lane in lanes]:
            done.result()

    show = run_claw(claw_env.env, "sessions", "show", lanes[0].session)
    assert show.returncode == 0, show.stderr
    flat = " ".join(show.stdout.split())  # rich wraps long lines to the terminal's width
    assert flat.count("(interrupted: the process running the turn ended before it finished)") == TRIALS // LANES
    assert "done with final 0" in flat
