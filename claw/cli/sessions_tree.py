"""`claw sessions ls --tree`: subagent sessions and forks under the sessions they came from."""

from __future__ import annotations

from typing import Any

Row = dict[str, Any]


def nest(rows: list[Row]) -> list[Row]:
    """The rows as a forest: each row gains `children` (rows whose `spawnedBy` or `forkedFrom` is its key),
    in list order.
    A child whose parent is not listed (another agent's session, or removed) stays at the top."""
    by_key = {row["key"]: {**row, "children": []} for row in rows}
    roots: list[Row] = []
    for row in rows:
        node = by_key[row["key"]]
        parent = by_key.get(_parent(row))
        if parent is not None and parent is not node and not _descends(by_key, parent, node):
            parent["children"].append(node)
        else:
            roots.append(node)
    return roots


def _descends(by_key: dict[str, Row], node: Row, ancestor: Row) -> bool:
    """True if `node` is `ancestor` or below it (a hand-edited index could hold a cycle)."""
    seen = 0
    while node is not None and seen < len(by_key):
        if node is ancestor:
            return True
        node = by_key.get(_parent(node))  # type: ignore[assignment]
        seen += 1
    return False


def _parent(row: Row) -> str:
    """The key of the session `row` came from: the one that spawned it, or the one it was forked from."""
    return str(row.get("spawnedBy") or row.get("forkedFrom") or "")


def flatten(forest: list[Row], depth: int = 0) -> list[tuple[int, Row]]:
    """Depth-first (row, depth) pairs for printing."""
    out: list[tuple[int, Row]] = []
    for node in forest:
        out.append((depth, node))
        out.extend(flatten(node["children"], depth + 1))
    return out


def label(depth: int, row: Row, agent_id: str) -> str:
    """The session key, indented under its parent; below the top without `agent:<id>:` (the key that
    `claw sessions show` takes as well)."""
    key: str = row["key"]
    fork = f" (fork at message {row.get('forkedAt')})" if row.get("forkedFrom") else ""
    if depth == 0:
        if row.get("spawnedBy"):
            return f"{key}  (spawned by {row['spawnedBy']})"
        return key + (f"  (forked from {row['forkedFrom']} at message {row.get('forkedAt')})" if fork else "")
    return "   " * (depth - 1) + "└─ " + key.removeprefix(f"agent:{agent_id}:") + fork
