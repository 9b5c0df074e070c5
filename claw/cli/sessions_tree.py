"""`claw sessions ls --tree`: subagent sessions under the sessions that spawned them."""

from __future__ import annotations

from typing import Any

Row = dict[str, Any]


def nest(rows: list[Row]) -> list[Row]:
    """The rows as a forest: each row gains `children` (rows whose `spawnedBy` is its key), in list order.
    A child whose parent is not listed (another agent's session, or removed) stays at the top."""
    by_key = {row["sessionKey"]: {**row, "children": []} for row in rows}
    roots: list[Row] = []
    for row in rows:
        node = by_key[row["sessionKey"]]
        parent = by_key.get(row.get("spawnedBy") or "")
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
        node = by_key.get(node.get("spawnedBy") or "")  # type: ignore[assignment]
        seen += 1
    return False


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
    key: str = row["sessionKey"]
    if depth == 0:
        parent = row.get("spawnedBy")
        return key + (f"  (spawned by {parent})" if parent else "")
    return "   " * (depth - 1) + "└─ " + key.removeprefix(f"agent:{agent_id}:")
