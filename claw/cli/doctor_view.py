"""How `claw doctor` and `claw doctor model` print their findings: one aligned line each, the fix under it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from claw.finding import Finding

_MARKS = {"ok": "✓", "warn": "!", "fail": "✗"}


def print_findings(findings: list[Finding], fixed: list[str], fix: bool) -> None:
    """The findings as aligned lines (mark, name, detail, and the fix under a line that is not ok), then counts."""
    for line in fixed:
        typer.echo(f"fixed: {line}")
    if fix and not fixed:
        typer.echo("fixed: nothing needed fixing")
    width = max(len(f.name) for f in findings)
    for finding in findings:
        typer.echo(f"{_MARKS[finding.status]} {finding.name:<{width}}  {finding.detail}")
        if finding.fix and finding.status != "ok":
            typer.echo(f"  {'':<{width}}  → {finding.fix}")
    counts = {status: sum(1 for f in findings if f.status == status) for status in _MARKS}
    warnings = "warning" if counts["warn"] == 1 else "warnings"
    typer.echo(f"{counts['ok']} ok, {counts['warn']} {warnings}, {counts['fail']} failed")
