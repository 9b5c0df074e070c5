"""Subagent tests: an in-process gateway (the fixtures of tests/gateway) and a scripted model that answers by
who is asking — a child run, the parent reporting an announcement, or the parent's own turn."""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from claw.client.local import LocalClient
from tests.gateway.conftest import client, make_client, workspace  # noqa: F401 - fixtures
from tests.support.model_server import RecordedRequest, Reply, text

Answer = Reply | Callable[[RecordedRequest], Reply]


def system_prompt(request: RecordedRequest) -> str:
    return str(request.messages[0]["content"]) if request.messages else ""


def is_child(request: RecordedRequest) -> bool:
    return "## Subagent\nYou are a subagent" in system_prompt(request)


def turn_message(request: RecordedRequest) -> str:
    """The message that started the turn this request belongs to (the last user-role message)."""
    users = [m for m in request.messages if m["role"] == "user"]
    return str(users[-1]["content"]) if users else ""


def is_announcement(request: RecordedRequest) -> bool:
    return not is_child(request) and turn_message(request).startswith("[System event] Subagent")


class Roles:
    """A responder for `server.default`: each role answers from its own queue, then with its fallback."""

    def __init__(
        self,
        *,
        parent: tuple[Answer, ...] | list[Answer] = (),
        child: tuple[Answer, ...] | list[Answer] = (),
        announce: tuple[Answer, ...] | list[Answer] = (),
        child_default: Answer = text("child done"),
        announce_default: Answer = text("reported"),
    ) -> None:
        self._lock = threading.Lock()
        self._queues = {"parent": deque(parent), "child": deque(child), "announce": deque(announce)}
        self._defaults: dict[str, Answer] = {
            "parent": text("parent done"),
            "child": child_default,
            "announce": announce_default,
        }
        self.seen: dict[str, list[RecordedRequest]] = {"parent": [], "child": [], "announce": []}

    def __call__(self, request: RecordedRequest) -> Reply:
        role = "child" if is_child(request) else "announce" if is_announcement(request) else "parent"
        with self._lock:
            self.seen[role].append(request)
            queue = self._queues[role]
            answer = queue.popleft() if queue else self._defaults[role]
        return answer(request) if callable(answer) else answer


async def eventually(check: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> Any:
    """Poll `check` until it returns something truthy (generous: the machine is shared)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = check()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def settle(gateway_client: LocalClient, run_id: str, timeout: float = 60.0) -> dict[str, Any]:
    """Wait (as `claw agent -m` does) until everything run `run_id` started has settled."""
    known: list[str] = []
    async with asyncio.timeout(timeout):
        while True:
            state = await gateway_client.call("subagents.wait", parentRunId=run_id, timeoutMs=5000, known=known)
            known += [a for a in state["announceRunIds"] if a not in known]
            if state["status"] == "settled":
                return state
