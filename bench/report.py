"""What every benchmark prints: the machine it ran on, percentiles, and target verdicts.

A benchmark records `Target`s as it goes and ends with `finish(targets)`, which prints
one `SUMMARY` line per target (bench/run_all.sh collects those) and returns the exit
code: 0 when every target was met, 1 otherwise.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


def percentile(values: Sequence[float], pct: float) -> float:
    """The `pct`-th percentile (0-100) by linear interpolation between the closest ranks."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * pct / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "n/a"


def machine_line() -> str:
    """One line describing where the numbers came from; print it before and after measuring."""
    return (
        f"machine: nproc={os.cpu_count()} cpu={cpu_model()!r} python={platform.python_version()} "
        f"({sys.executable}) load={load_average()}"
    )


def fsync_latency(directory: Path, samples: int = 10) -> float:
    """Median seconds to write 1 KB and fsync it in `directory`: how busy the disk is right now
    (claw fsyncs the session index on every turn, so the turn overhead moves with this)."""
    path = directory / ".bench-fsync-probe"
    times = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for _ in range(samples):
            os.write(fd, b"x" * 1024)
            started = time.perf_counter()
            os.fsync(fd)
            times.append(time.perf_counter() - started)
    finally:
        os.close(fd)
        path.unlink()
    return statistics.median(times)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def spread(name: str, seconds: Sequence[float], unit: str = "ms") -> str:
    """`name: p50 … p90 … p99 … (min … max …, n=…)`, in milliseconds (or seconds with unit="s")."""
    scale = 1000.0 if unit == "ms" else 1.0
    digits = 2 if unit == "ms" else 3

    def fmt(value: float) -> str:
        return f"{value * scale:.{digits}f}"

    return (
        f"{name:<44} p50 {fmt(percentile(seconds, 50)):>8}  p90 {fmt(percentile(seconds, 90)):>8}  "
        f"p99 {fmt(percentile(seconds, 99)):>8}  min {fmt(min(seconds)):>8}  max {fmt(max(seconds)):>8} {unit}"
        f"  (n={len(seconds)})"
    )


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


@dataclass(frozen=True, slots=True)
class Target:
    """One target of issue 2 part 10 and what was measured against it."""

    name: str
    measured: float
    limit: float
    unit: str

    @property
    def met(self) -> bool:
        return self.measured < self.limit

    def line(self) -> str:
        verdict = "met" if self.met else "MISSED"
        return f"SUMMARY {self.name}: {self.measured:.3g} {self.unit} (target < {self.limit:g} {self.unit}) {verdict}"


def finish(targets: Sequence[Target]) -> int:
    print(machine_line())
    for target in targets:
        print(target.line())
    return 0 if all(t.met for t in targets) else 1
