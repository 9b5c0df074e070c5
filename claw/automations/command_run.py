"""The `command` target: a job that runs the operator's own command line instead of an agent turn.

Only the operator adds one (`claw automations add --command`, or `automations.add` with the admin scope);
the agent's `automations` tool refuses to, so the model never writes code the host runs. It runs like a
cron entry: `/bin/sh -c` in the user's home, with the environment `exec` would get (secrets left out), the
triggering event (if any) on stdin, stopped after `automations.commandTimeoutSeconds`. Its output (stdout
then stderr, capped) is the run's output and is delivered as a reply would be; a non-zero exit is an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from claw.errors import ClawError

MAX_OUTPUT_BYTES = 64 * 1024


async def run_command(command: str, *, stdin: str | None, timeout: float) -> str:
    from claw.tools.exec_env import command_env

    proc = await asyncio.create_subprocess_exec(
        "/bin/sh", "-c", command,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        cwd=Path.home(), env=command_env(), start_new_session=True,
    )  # fmt: skip
    try:
        async with asyncio.timeout(timeout):
            out, _ = await proc.communicate(stdin.encode("utf-8") if stdin is not None else None)
    except (TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the whole group: a shell's children too
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise ClawError(f"the command ran longer than {timeout:g} s and was stopped") from None
    text = out[:MAX_OUTPUT_BYTES].decode("utf-8", errors="replace").strip()
    if len(out) > MAX_OUTPUT_BYTES:
        text += f"\n[… output cut at {MAX_OUTPUT_BYTES} bytes]"
    if proc.returncode != 0:
        tail = text[-500:] if text else "no output"
        raise ClawError(f"the command exited with status {proc.returncode}: {tail}")
    return text
