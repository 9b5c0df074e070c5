"""Reading `python -X importtime` output: which imports a process made, and what they cost.

Each line is `import time: <self us> | <cumulative us> | <indent><module>`; the indent (two
spaces a level) tells who imported whom. Times are inflated by the measuring itself (roughly
+20 %), so use them to rank imports, and wall-clock runs without -X importtime for totals.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PREFIX = "import time:"


@dataclass(frozen=True, slots=True)
class ImportRow:
    name: str
    self_us: int
    cumulative_us: int
    depth: int

    @property
    def package(self) -> str:
        return self.name.split(".", 1)[0]


def parse(stderr: str) -> list[ImportRow]:
    rows = []
    for line in stderr.splitlines():
        if not line.startswith(PREFIX) or "self [us]" in line:
            continue
        self_us, cumulative_us, name = line[len(PREFIX) :].split("|", 2)
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        rows.append(ImportRow(name.strip(), int(self_us), int(cumulative_us), depth))
    return rows


def run(
    argv: Sequence[str], env: dict[str, str] | None = None, timeout: float = 120, expect: int = 0
) -> list[ImportRow]:
    """Run `python -X importtime <argv…>` (argv[0] is the interpreter) and parse what it imported; an exit
    code other than `expect` (a refusal's is 2) is an error."""
    cmd = [argv[0], "-X", "importtime", *argv[1:]]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if done.returncode != expect:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr[-2000:]}")
    return parse(done.stderr)


def modules(rows: Iterable[ImportRow]) -> set[str]:
    return {row.name for row in rows}


def offenders(rows: Iterable[ImportRow], packages: Iterable[str]) -> list[str]:
    """Modules of `packages` (top-level names) among `rows`, sorted."""
    wanted = set(packages)
    return sorted(row.name for row in rows if row.package in wanted)


def total_ms(rows: Iterable[ImportRow]) -> float:
    """All import time of the process: the sum of the top-level imports' cumulative times."""
    return sum(row.cumulative_us for row in rows if row.depth == 0) / 1000


def by_package(rows: Iterable[ImportRow]) -> list[tuple[str, float]]:
    """Import time charged to each top-level package (its modules' self time), largest first, in ms.

    Self times add up to `total_ms`; `claw.cli.app` importing `typer` charges typer's modules to
    `typer`, not to `claw`."""
    groups: dict[str, float] = {}
    for row in rows:
        groups[row.package] = groups.get(row.package, 0.0) + row.self_us / 1000
    return sorted(groups.items(), key=lambda item: item[1], reverse=True)


def heaviest(rows: Iterable[ImportRow], *, max_depth: int, min_ms: float) -> list[ImportRow]:
    """Rows at most `max_depth` deep costing at least `min_ms` cumulatively, in import order."""
    return [row for row in rows if row.depth <= max_depth and row.cumulative_us >= min_ms * 1000]


def tree_lines(rows: Iterable[ImportRow], *, max_depth: int, min_ms: float) -> list[str]:
    return [
        f"{row.cumulative_us / 1000:9.1f} ms  {'  ' * row.depth}{row.name}"
        for row in heaviest(rows, max_depth=max_depth, min_ms=min_ms)
    ]
