"""`gateway.controlUi.root` served by a real in-process gateway server, against a small build folder made
here: files by path, nothing outside the root (`..`, links), the app's own routes get its index, claw's own
paths stay claw's, and a folder without an index.html is refused at start, naming the key."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from claw.errors import ConfigError
from tests.server.conftest import MakeServed, Served, home, make_served  # noqa: F401 (fixtures)
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw

INDEX = '<!doctype html><html lang="en"><head><script>globalThis.boot = 1;</script></head><body>app</body></html>'


async def _get(url: str, accept: str = "*/*") -> tuple[int, dict[str, str], bytes]:
    """A GET from another thread: the server answers on this test's event loop."""
    return await asyncio.to_thread(_fetch, url, accept)


def _fetch(url: str, accept: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


@pytest.fixture
def build(tmp_path: Path) -> Path:
    root = tmp_path / "control-ui"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text(INDEX)
    (root / "assets" / "app.js").write_text("export const app = 1;\n")
    (tmp_path / "secret.txt").write_text("not for the browser")
    (root / "assets" / "escape.js").symlink_to(tmp_path / "secret.txt")
    return root


async def test_files_the_index_and_nothing_outside(make_served: MakeServed, build: Path) -> None:  # noqa: F811
    served: Served = await make_served(control_ui_root=build)
    base = served.http_url
    status, headers, body = await _get(f"{base}/", accept="text/html")
    assert status == 200 and b'data-openclaw-control-ui-base-path=""' in body and b"globalThis.boot" in body
    csp = headers["Content-Security-Policy"]
    assert "'sha256-" in csp and "frame-ancestors 'none'" in csp
    status, headers, body = await _get(f"{base}/assets/app.js")
    assert status == 200 and body == b"export const app = 1;\n" and "immutable" in headers["Cache-Control"]
    assert (await _get(f"{base}/assets/escape.js"))[0] == 404  # a link out of the root
    assert (await _get(f"{base}/assets/%2e%2e/%2e%2e/secret.txt"))[0] == 404
    index = (await _get(f"{base}/"))[2]
    assert (await _get(f"{base}/sessions/agent:main:main", accept="text/html"))[2] == index  # the app's own route
    assert (await _get(f"{base}/missing.js"))[0] == 404  # not a page: no index in its place
    assert (await _get(f"{base}/control-ui-config.json"))[2].startswith(b'{"basePath": ""')
    # claw's own paths stay claw's: the web chat, health, the API.
    assert b"chat.js" in (await _get(f"{base}/chat/", accept="text/html"))[2]
    assert (await _get(f"{base}/health"))[2] == b'{"ok": true}'
    assert (await _get(f"{base}/v1/models"))[0] == 401


async def test_a_folder_without_an_index_is_refused_naming_the_key(make_served: MakeServed, tmp_path: Path) -> None:  # noqa: F811
    with pytest.raises(ConfigError, match=r"gateway.controlUi.root: .* has no index.html"):
        await make_served(control_ui_root=tmp_path)


def test_claw_gateway_run_says_so_in_one_line_and_exits_2(claw_env: ClawEnv, tmp_path: Path) -> None:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": "tok-control-ui"}
    assert run_claw(env, "init").returncode == 0
    with (claw_env.home / "config.toml").open("a") as config:
        config.write(f'\n[gateway.controlUi]\nroot = "{tmp_path / "no-build"}"\n')
    done = run_claw(env, "gateway", "run", "--port", "0", timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith("claw: gateway.controlUi.root: ") and "Traceback" not in done.stderr
