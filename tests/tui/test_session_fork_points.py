"""The fork points the pickers offer (`sessions.forkPoints`): every user message still in the history, with the
fork keeping its exchange and the one stopping short of it; an undone exchange is neither listed nor
brought back by a cut before the message after it; the notes of a run stay with their message. And the
picker works the same on a console attached over WebSocket."""

from __future__ import annotations

from claw.store.fork import fork_point, message_fork_points
from claw.transcript_entries import undone_ids
from claw.tui.fork_picker import MessagePickerScreen
from claw.tui.widgets.conversation.user_message import UserMessage
from tests.support.model_server import text
from tests.tui.conftest import SIZE, type_and_send, wait_for


def _exchange(tag: str, *, note: bool = False) -> list[dict]:
    run = f"run-{tag}"
    head = [{"id": f"{tag}-note", "role": "system", "content": "a note", "runId": run}] if note else []
    return head + [
        {"id": f"{tag}-u", "role": "user", "content": f"ask {tag}", "runId": run, "createdAt": "2026-01-01T00:00:00Z"},
        {"id": f"{tag}-a", "role": "assistant", "content": f"answer {tag}", "runId": run},
    ]


def test_points_skip_undone_exchanges_and_keep_notes_with_their_message() -> None:
    entries = [
        *_exchange("a"),  # messages 1, 2
        *_exchange("b"),  # 3, 4: undone below
        {"id": "undo-1", "type": "undo", "fromId": "b-u", "messages": 2},
        *_exchange("c", note=True),  # 5 (the note), 6, 7
        {"id": "d-u", "role": "user", "content": "ask d", "runId": "run-d"},  # 8: its turn still open
    ]
    points = message_fork_points(entries)
    assert [(p.number, p.text, p.before, p.after) for p in points] == [
        (1, "ask a", 0, 2),
        (6, "ask c", 2, 7),  # before: under the undone "b" and the note, so "b" stays out of the fork
        (8, "ask d", 7, None),
    ]
    kept = fork_point(entries, points[1].before).entries
    assert [e["id"] for e in kept] == ["a-u", "a-a"]
    whole = fork_point(entries, points[1].after).entries
    assert {"b-u", "b-a"} <= undone_ids(whole)  # a fork after "c" keeps "b" undone: the marker is copied


def test_a_message_after_an_unfinished_turn_has_no_fork_before_it() -> None:
    entries = [
        {"id": "x-u", "role": "user", "content": "ask x", "runId": "run-x"},
        {"id": "x-t", "role": "assistant", "content": "", "runId": "run-x", "toolCalls": [{"id": "c1"}]},
        *_exchange("y"),
    ]
    points = message_fork_points(entries)
    assert [(p.number, p.before, p.after) for p in points] == [(1, 0, None), (3, None, 4)]


async def test_the_fork_picker_over_websocket(claw_env, remote_console) -> None:
    claw_env.server.script(text("one"), text("two"))
    app = (await remote_console()).app
    async with app.run_test(size=SIZE) as pilot:
        for n, message in enumerate(("first", "second"), start=1):
            await type_and_send(pilot, message)
            await wait_for(pilot, lambda n=n: len(claw_env.server.chat_requests) == n and not app.chat.runs)
        await type_and_send(pilot, "/fork")
        picker = await wait_for(pilot, lambda: isinstance(app.screen, MessagePickerScreen) and app.screen)
        assert [c.number for c in picker.choices] == [2, 4]
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.chat.session_key.startswith("agent:main:fork:"), what="the fork opened")
        await wait_for(
            pilot, lambda: [m.text for m in app.chat.conversation.query(UserMessage)] == ["first"], what="its history"
        )
