"""`claw doctor model [REF] [--json] [--timeout S] [--probe-tokens N]`: a real round trip against the model.

What each line checks, and its fixes, is in `claw.doctor.model` (imported when the command runs, with
the `openai` client: `claw --help` pays for neither). Exit code 0 when no line failed, 1 when one did,
2 for a bad REF or option.
"""

from __future__ import annotations

import typer

from claw.cli.common import AgentOption, JsonOption


def model(
    ref: str = typer.Argument(None, help="A model ref such as ollama/qwen3:8b (default: the agent's model)."),
    as_json: bool = JsonOption,
    agent: str = AgentOption,
    timeout: float = typer.Option(
        60.0, "--timeout", min=0.1, help="Seconds each model call may take (a long prompt on a laptop takes a while)."
    ),
    probe_tokens: int = typer.Option(
        None, "--probe-tokens", min=0, help="Size of the long-prompt check (default: near the window; 0 skips it)."
    ),
) -> None:
    """Try the model for real: endpoint, streaming, a tool call, the context window, a long prompt, reasoning."""
    import asyncio

    from claw.cli.common import load
    from claw.cli.doctor_view import print_findings
    from claw.doctor.model import doctor_model

    _paths, config = load(agent)
    report = asyncio.run(doctor_model(config, agent, ref, timeout=timeout, probe_tokens=probe_tokens))
    if as_json:
        from claw.cli.common import print_json

        print_json(report.to_json())
    else:
        typer.echo(f"{report.ref} at {report.url}")
        print_findings(report.findings, [], False)
        typer.echo(f"took {report.seconds:.2f} s")
    raise typer.Exit(0 if report.ok else 1)
