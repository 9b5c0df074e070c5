"""/export names the full path of what it wrote — and of what it could not write — whatever form of
path it was given: none (the current directory), a relative directory, a relative file."""

from __future__ import annotations

from claw.tui.widgets.conversation.notice import Notice
from tests.support.model_server import text
from tests.tui.conftest import SIZE, type_and_send, wait_for


def _newest_notice(app, prefix: str, count: int) -> str:
    found = [n.text for n in app.chat.conversation.query(Notice) if n.text.startswith(prefix)]
    return found[-1] if len(found) >= count else ""


async def test_export_names_the_full_path(claw_env, console, tmp_path, monkeypatch) -> None:
    claw_env.server.script(text("Worth keeping."))
    here = tmp_path / "here"
    (here / "notes").mkdir(parents=True)
    monkeypatch.chdir(here)
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "keep this")
        await wait_for(pilot, lambda: app.chat.conversation.query("AssistantMessage") and not app.chat.runs)

        await type_and_send(pilot, "/export")
        said = await wait_for(pilot, lambda: _newest_notice(app, "Exported", 1), what="the first export")
        written = list(here.glob("claw-main-*.md"))
        assert len(written) == 1 and said.endswith(f" to {written[0].resolve()}")

        await type_and_send(pilot, "/export notes")
        said = await wait_for(pilot, lambda: _newest_notice(app, "Exported", 2), what="the export into notes/")
        written = list((here / "notes").glob("claw-main-*.md"))
        assert len(written) == 1 and said.endswith(f" to {written[0].resolve()}")

        await type_and_send(pilot, "/export missing/chat.md")
        said = await wait_for(pilot, lambda: _newest_notice(app, "✗ could not write", 1), what="the failure")
        assert f"could not write {(here / 'missing' / 'chat.md').resolve()}:" in said
        assert not (here / "missing").exists()
