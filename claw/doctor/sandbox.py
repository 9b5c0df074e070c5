"""`claw doctor`'s sandbox check: can `exec` run commands under bubblewrap here, and does the agent want it?

It runs the same probe exec runs (a real bwrap around `/bin/true`, claw/tools/sandbox_probe.py), so
"usable" here means exec's commands really are sandboxed, and "missing" or "cannot create namespaces"
comes with what to install or allow.
"""

from __future__ import annotations

from claw.config import Config
from claw.finding import Finding, agent_key, ok, warn
from claw.tools.sandbox_probe import probe_sandbox

NAME = "sandbox"


def check_sandbox(config: Config, agent_id: str) -> Finding:
    settings = config.agent(agent_id).sandbox
    key = agent_key(agent_id, "sandbox.mode")
    probe = probe_sandbox()
    if settings.mode == "off":
        return warn(NAME, f"off ({key}): exec runs every command unsandboxed", f"claw config set {key} all")
    if probe.usable:
        where = "every session" if settings.mode == "all" else "every session but the owner's main one"
        network = "with network" if settings.network else "no network"
        return ok(NAME, f"{probe.detail}: exec runs sandboxed in {where} ({network})")
    consequence = "channel, automation and subagent sessions refuse to exec"
    if settings.mode == "all":
        consequence = f"exec runs unsandboxed in the main session; {consequence}"
    return warn(NAME, f"{probe.detail}: {consequence}", f"{probe.fix}; or `claw config set {key} off`")
