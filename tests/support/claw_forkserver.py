"""A fork server for `claw` processes: one interpreter per test worker imports claw (and openai) once, then forks a
fresh process for each `claw ARGS` a test runs.

Why: the CLI tests run `claw` a few hundred times, and about three quarters of the suite's CPU went to each of those
processes importing openai and claw again. A forked child is still a real process (its own pid, environment, working
directory, stdin/stdout/stderr file descriptors, exit status or killing signal, atexit handlers and interpreter
shutdown); what it skips is only the import work its parent already did. What only a fresh interpreter shows (import
budgets, `-X importtime`, signals to a process group) keeps using `subprocess` directly.

The protocol, over a Unix socket: the client sends one JSON request ({"args", "env", "cwd"}) with three file
descriptors (stdin, stdout, stderr) attached; the server forks, answers {"pid"}, and when the child ends it sends
{"status"} (a wait status, as `os.waitpid` gives it) and closes the connection.

Run as a module: `python -m tests.support.claw_forkserver SOCKET_PATH` (PYTHONPATH at the repository root); it exits
when its parent's pipe on stdin closes (the test worker ended).
"""

from __future__ import annotations

import importlib
import json
import os
import selectors
import signal
import socket
import sys
from dataclasses import dataclass
from typing import Any

# What a `claw` command imports on its way to work, loaded once in the server. Only imports: nothing here may
# start a thread, open a loop or read the environment at import time, since every child inherits the result.
PRELOAD = (
    "openai",
    "claw.cli.app",
    "claw.cli.agent",
    "claw.cli.config",
    "claw.cli.sessions",
    "claw.cli.skills",
    "claw.cli.automations",
    "claw.cli.gateway",
    "claw.cli.agents",
    "claw.cli.memory",
    "claw.cli.hooks",
    "claw.cli.channels",
    "claw.cli.doctor",
    "claw.cli.usage",
    "claw.cli.mcp",
    "claw.cli.workspace",
    "claw.compose",
    "claw.client.local",
    "claw.client.remote",
)
_MAX_REQUEST = 4 << 20


@dataclass(frozen=True, slots=True)
class Job:
    """What a forked child is to run: `claw ARGS` with this environment, directory and standard streams."""

    args: list[str]
    env: dict[str, str]
    cwd: str
    fds: list[int]


def _preload() -> None:
    for name in PRELOAD:
        importlib.import_module(name)


def _serve(path: str) -> Job:
    """Accept requests until stdin closes; returns only in a forked child, with the job it is to run."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that the wakeup fd is written
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_read, selectors.EVENT_READ, "child")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "parent")
    print("ready", flush=True)
    waiting: dict[int, socket.socket] = {}  # child pid → the connection that asked for it
    while True:
        for key, _ in selector.select():
            if key.data == "parent":
                if not os.read(sys.stdin.fileno(), 4096):
                    sys.exit(0)
            elif key.data == "child":
                os.read(wake_read, 4096)
                _reap(waiting)
            else:
                conn, _ = listener.accept()
                request, fds = _receive(conn)
                pid = os.fork()
                if pid == 0:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    selector.close()
                    for fd in (wake_read, wake_write):
                        os.close(fd)
                    listener.close()
                    conn.close()
                    for other in waiting.values():
                        other.close()
                    return Job(args=request["args"], env=request["env"], cwd=request["cwd"], fds=fds)
                for fd in fds:
                    os.close(fd)
                conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
                waiting[pid] = conn
                _reap(waiting)  # in case it ended before it was recorded


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    message, fds, _, _ = socket.recv_fds(conn, _MAX_REQUEST, 3)
    while not message.endswith(b"\n"):
        more = conn.recv(_MAX_REQUEST)
        if not more:
            break
        message += more
    return json.loads(message), list(fds)


def _reap(waiting: dict[int, socket.socket]) -> None:
    while waiting:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = waiting.pop(pid, None)
        if conn is not None:
            try:
                conn.sendall(json.dumps({"status": status}).encode() + b"\n")
            except OSError:
                pass
            conn.close()


def _become(job: Job) -> None:
    """In the child: take the job's streams, environment, directory and arguments, then run claw's entry point.
    Leaving by `SystemExit` through the interpreter's own shutdown, as a fresh `python -m claw` would."""
    for target, fd in enumerate(job.fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(job.env)
    os.chdir(job.cwd)
    import claw

    sys.argv = [os.path.join(os.path.dirname(claw.__file__ or ""), "__main__.py"), *job.args]
    sys.modules["__main__"].__package__ = "claw"  # click names the program from this: `python -m claw`
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from claw.cli.app import main

    main()


if __name__ == "__main__":
    _preload()
    _become(_serve(sys.argv[1]))
