"""Running one function in several processes at once, for the tests of files shared between processes."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any


def run_together(target: Callable[..., None], processes: int, *args: Any) -> None:
    """`target(n, *args)` for n in 0..processes-1, each in its own (forked) process, released together;
    each must exit 0 within a minute."""
    context = multiprocessing.get_context("fork")
    start = context.Event()
    workers = [context.Process(target=_when_started, args=(start, target, n, *args)) for n in range(processes)]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0


def _when_started(start: Any, target: Callable[..., None], n: int, *args: Any) -> None:
    start.wait(10)
    target(n, *args)
