"""The sessions' full-text index: updated as turns are flushed, caught up before a search, rebuildable."""

from __future__ import annotations

from pathlib import Path

from claw.store.search_index import INDEX_NAME
from claw.store.search_query import match_expression, parse_snippet
from claw.store.search_sync import catch_up, rebuild
from claw.store.sessions import SessionStore


def _turn(store: SessionStore, key: str, said: str, reply: str) -> None:
    store.get_or_create(key)
    transcript = store.transcript(key)
    transcript.append({"role": "user", "content": said, "runId": "r"})
    transcript.append({"role": "assistant", "content": reply, "runId": "r"})
    store.record_turn(key, preview=reply, save=False)
    store.flush()


def _found(store: SessionStore, query: str, **options: object) -> list[tuple[str | None, str]]:
    index = store.search_index()
    catch_up(store, index)
    return [(hit.session_key, hit.snippet.text) for hit in index.search(query, **options)]  # type: ignore[arg-type]


def test_a_flushed_turn_is_in_the_index_without_a_catch_up(store: SessionStore) -> None:
    _turn(store, "agent:main:main", "where is the aardvark", "in the zoo")
    hits = store.search_index().search("aardvark")
    assert [(h.session_key, h.role, h.position) for h in hits] == [("agent:main:main", "user", 0)]
    assert hits[0].snippet.text == "where is the aardvark"
    assert [hits[0].snippet.text[s:e] for s, e in hits[0].snippet.spans] == ["aardvark"]


def test_finds_a_word_said_three_sessions_ago_newest_first(store: SessionStore) -> None:
    _turn(store, "agent:main:one", "my cat is called Quaxly", "nice name")
    for name in ("two", "three", "four"):
        _turn(store, f"agent:main:{name}", f"session {name} talk", "ok")
    _turn(store, "agent:main:five", "remember Quaxly?", "your cat, yes")
    assert _found(store, "quaxly") == [("agent:main:five", "remember Quaxly?"),
                                        ("agent:main:one", "my cat is called Quaxly")]  # fmt: skip
    assert _found(store, "quaxly cat") == [("agent:main:one", "my cat is called Quaxly")]  # every word must match
    assert _found(store, "qua", prefix=True)[0][0] == "agent:main:five"
    assert _found(store, "qua") == []  # whole words unless asked


def test_archived_sessions_stay_searchable_under_their_key(store: SessionStore) -> None:
    _turn(store, "agent:main:main", "the password hint is marmalade", "noted")
    old_id = store.get("agent:main:main").session_id  # type: ignore[union-attr]
    store.reset("agent:main:main")
    _turn(store, "agent:main:main", "fresh start", "hello")
    hits = store.search_index().search("marmalade")
    assert [(h.session_id, h.session_key) for h in hits] == [(old_id, "agent:main:main")]
    catch_up(store, store.search_index())  # as before any search: taking in the archive keeps the key
    hits = store.search_index().search("marmalade")
    assert [(h.session_id, h.session_key) for h in hits] == [(old_id, "agent:main:main")]
    assert store.get("agent:main:main").session_id != old_id  # type: ignore[union-attr]


def test_an_archive_the_index_never_saw_is_found_by_the_catch_up(store: SessionStore, sessions_dir: Path) -> None:
    _turn(store, "agent:main:main", "before the index: kumquat", "ok")
    store.close()
    (sessions_dir / INDEX_NAME).unlink()  # derived: deleting it loses nothing
    for suffix in ("-wal", "-shm"):
        (sessions_dir / f"{INDEX_NAME}{suffix}").unlink(missing_ok=True)
    again = SessionStore(sessions_dir)
    try:
        again.reset("agent:main:main")
        assert _found(again, "kumquat") == [(None, "before the index: kumquat")]  # archived; key unknown
    finally:
        again.close()


def test_compaction_leaves_the_old_words_findable(store: SessionStore) -> None:
    _turn(store, "agent:main:main", "the launch code is pelican", "got it")
    transcript = store.transcript("agent:main:main")
    first = transcript.read()[-1]["id"]
    transcript.append({"type": "compaction", "summary": "talked about codes", "firstKeptId": first})
    _turn(store, "agent:main:main", "what now", "we wait")
    assert _found(store, "pelican") == [("agent:main:main", "the launch code is pelican")]
    assert _found(store, "wait") == [("agent:main:main", "we wait")]


def test_messages_written_without_a_flush_are_caught_up(store: SessionStore) -> None:
    store.get_or_create("agent:main:main")
    transcript = store.transcript("agent:main:main")
    transcript.append({"role": "user", "content": "a process died before flushing: walrus"})
    store.update("agent:main:main", message_count=1)  # what the recount on the next use finds
    assert store.search_index().search("walrus") == []
    assert _found(store, "walrus") == [("agent:main:main", "a process died before flushing: walrus")]


def test_a_rebuild_from_scratch_gives_the_same_results(store: SessionStore) -> None:
    for n in range(5):
        _turn(store, f"agent:main:s{n}", f"topic {n} giraffe", f"reply {n} giraffe")
    store.reset("agent:main:s2")
    before = _found(store, "giraffe", limit=50)
    report = rebuild(store, store.search_index())
    assert report.messages == 10 and report.archived == 1
    assert _found(store, "giraffe", limit=50) == before and len(before) == 10


def test_since_and_limit(store: SessionStore) -> None:
    for n in range(3):
        _turn(store, f"agent:main:s{n}", f"otter number {n}", "ok")
    third = store.transcript("agent:main:s2").read()[0]["createdAt"]
    assert _found(store, "otter", since=third) == [("agent:main:s2", "otter number 2")]
    assert _found(store, "otter", limit=2) == [("agent:main:s2", "otter number 2"), ("agent:main:s1", "otter number 1")]
    assert _found(store, "otter", since="2999-01-01T00:00:00Z") == []


def test_tool_results_are_not_indexed_and_display_text_is(store: SessionStore) -> None:
    store.get_or_create("agent:main:main")
    transcript = store.transcript("agent:main:main")
    transcript.append({"role": "user", "content": "[skill text] expanded", "display": "/skill badger", "runId": "r"})
    transcript.append({"role": "assistant", "content": "", "toolCalls": [{"id": "c", "name": "read"}], "runId": "r"})
    transcript.append({"role": "tool", "toolCallId": "c", "name": "read", "content": "badger file contents"})
    transcript.append({"role": "assistant", "content": "done", "runId": "r"})
    store.record_turn("agent:main:main", preview="done")
    store.flush()
    assert _found(store, "badger") == [("agent:main:main", "/skill badger")]


def test_query_syntax_is_plain_text() -> None:
    assert match_expression('say "hi" AND -x NEAR(') == '"say" """hi""" "AND" "-x" "NEAR("'
    assert match_expression("  ... ") is None
    assert match_expression("abc de", prefix=True) == '"abc" "de"*'
    assert parse_snippet("a \x02b\x03 c\nd") .spans == ((2, 3),)


def test_odd_queries_never_fail(store: SessionStore) -> None:
    _turn(store, "agent:main:main", 'she said "NEAR" AND left -- ok', "fine")
    for query in ('"', "AND", "NEAR(", "-", "*", "a:b", "(x", "'"):
        _found(store, query)  # no sqlite3 error for any of them
    assert _found(store, "NEAR") == [("agent:main:main", 'she said "NEAR" AND left -- ok')]
