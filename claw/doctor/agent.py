"""`claw doctor`'s checks of what an agent has: sessions, skills, hooks and the memory index.

They only read: a corrupt session index is reported, not quarantined here (the next command that
opens it does that), and the memory index is opened only once it is known to open cleanly.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from claw.config import Config
from claw.finding import Finding, combine, listed, ok, warn
from claw.hooks.registry import HookRegistry
from claw.memory.index import MemoryIndex
from claw.memory.schema import connect
from claw.paths import Paths
from claw.skills.catalog import build_report
from claw.store.session_entry import SessionEntry
from claw.store.session_table import DB_NAME, JSON_NAME
from claw.store.transcript import Transcript


def check_sessions(paths: Paths, agent_id: str) -> Finding:
    name, folder = "sessions", paths.sessions_dir(agent_id)
    if not folder.is_dir():
        return ok(name, "none yet")
    problems: list[Finding] = []
    for corrupt in sorted(folder.glob(f"{JSON_NAME}.corrupt-*")):
        detail = f"a corrupt {JSON_NAME} was moved aside to {corrupt}"
        fix = f"recover what you need from {corrupt.name}, then delete it (transcripts were not touched)"
        problems.append(warn(name, detail, fix))
    if (folder / JSON_NAME).exists():  # not yet imported into sessions.sqlite (the next command does that)
        keys, index_problem = _read_index(folder / JSON_NAME)
    else:
        keys, index_problem = _read_table(folder / DB_NAME)
    if index_problem:
        problems.append(index_problem)
    transcripts = sorted(folder.glob("*.jsonl"))
    for path in transcripts:
        transcript = Transcript(path)
        transcript.read()  # each transcript is parsed once, here
        if transcript.last_read_skipped:
            key = keys.get(path.stem, f"session {path.stem} (not in the index)")
            lines = "line" if transcript.last_read_skipped == 1 else "lines"
            detail = f"{key}: {transcript.last_read_skipped} malformed {lines} skipped when read ({path.name})"
            fix = f"nothing is lost beyond those lines; if the session misbehaves, `claw sessions reset {key}`"
            problems.append(warn(name, detail, fix))
    read = _count(len(transcripts), "transcript")
    healthy = f"{len(keys)} in the index, {read} read cleanly" if transcripts else "none yet"
    return combine(name, problems, healthy)


def _read_table(path: Path) -> tuple[dict[str, str], Finding | None]:
    """Session id → key from sessions.sqlite, opened read-only."""
    if not path.exists():
        return {}, None
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
            return {session_id: key for key, session_id in conn.execute("SELECT key, session_id FROM sessions")}, None
    except sqlite3.Error as exc:
        return {}, warn("sessions", f"{path} cannot be read ({exc})", f"move {path.name} aside; transcripts are kept")


def _read_index(path: Path) -> tuple[dict[str, str], Finding | None]:
    """Session id → key, read without the store (which would move a corrupt file aside)."""
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}, None
    except ValueError as exc:
        data, error = None, str(exc)
    else:
        error = "not a JSON object"
    if not isinstance(data, dict):
        detail = f"{path} does not parse ({error}); the next claw command moves it aside and starts an empty index"
        return {}, warn("sessions", detail, "claw sessions ls (moves it aside; transcripts are kept)")
    keys: dict[str, str] = {}
    unreadable: list[str] = []
    for key, value in data.items():
        try:
            entry = SessionEntry.from_json(key, value)
        except ValueError:
            unreadable.append(key)
            continue
        keys[entry.session_id] = entry.session_key
    if unreadable:
        detail = f"{len(unreadable)} entries of {path} cannot be read (kept as they are): {listed(unreadable)}"
        return keys, warn("sessions", detail, f"correct or remove them in {path}, or `claw sessions rm KEY`")
    return keys, None


def check_skills(paths: Paths, config: Config, agent_id: str, workspace: Path) -> Finding:
    """Invalid skills, with the reasons `claw skills check` gives. A skill that overrides another of the
    same name (yours over a bundled one, say) is what you meant: counted, not warned about."""
    rows = build_report(paths, config, agent_id, workspace).rows(include_all=True)
    problems = [_problem("skills", row, "claw skills check") for row in rows if row["status"] == "invalid"]
    usable = sum(1 for row in rows if row["status"] == "ok")
    ineligible = sum(1 for row in rows if row["status"] == "ineligible")
    why = f", {ineligible} not eligible here (`claw skills check` says why)" if ineligible else ""
    return combine("skills", problems, f"{usable} usable{why}{_overrides(rows)}")


def check_hooks(paths: Paths, config: Config, agent_id: str, workspace: Path) -> Finding:
    """Invalid hooks, with the reasons `claw hooks ls` gives (overrides are counted, as for skills)."""
    rows = HookRegistry(paths, config.hooks, lambda _agent: workspace).rows(agent_id)
    problems = [_problem("hooks", row, "claw hooks ls") for row in rows if row["status"] == "invalid"]
    found = [row for row in rows if row["status"] != "shadowed"]
    enabled = sum(1 for row in found if row["enabled"])
    return combine("hooks", problems, f"{len(found)} found, {enabled} enabled{_overrides(rows)}")


def _overrides(rows: list[dict[str, Any]]) -> str:
    names = [row["name"] for row in rows if row["status"] == "shadowed"]
    return f"; overriding another copy: {listed(names)}" if names else ""


def _problem(name: str, row: dict[str, Any], fix: str) -> Finding:
    return warn(name, f"{row['name']} is {row['status']}: {row['reason']}", fix)


def check_memory(paths: Paths, config: Config, agent_id: str, workspace: Path) -> Finding:
    name, db = "memory index", paths.memory_index(agent_id)
    model = config.memory.embeddings.model
    mode = f"hybrid search ({model})" if model else "keyword-only (no memory.embeddings.model)"
    if not db.exists():
        return ok(name, f"not built yet (the first search builds it); {mode}")
    try:
        connect(str(db)).close()
    except sqlite3.DatabaseError as exc:
        detail = f"cannot open {db} ({exc}); search rebuilds it on first use"
        return warn(name, detail, "claw memory index --force (it is derived from the memory files)")
    index = MemoryIndex(db, workspace)
    try:
        status = index.status()
    finally:
        index.close()
    vectors = f", {status['vectors']} with vectors" if model else ""
    return ok(name, f"{_count(status['files'], 'file')}, {_count(status['chunks'], 'chunk')}{vectors}; {mode}")


def _count(n: object, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
