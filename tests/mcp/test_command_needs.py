"""What a server's command needs in its sandbox, derived from the command (claw/mcp/command_needs.py).

Real folders laid out as installs are: a pyenv Python under the home, a venv made from it, a console
script in the venv, a node package in a `node_modules` tree; the real bwrap runs are in tests/mcp/real/."""

from __future__ import annotations

import os
from pathlib import Path

from claw.mcp.command_needs import derive, server_environment


def _file(path: Path, text: str = "", mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)
    return path


def test_a_venv_script_needs_the_venv_and_the_python_behind_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pyenv = home / ".pyenv" / "versions" / "3.11.7"
    _file(pyenv / "bin" / "python3.11", "#!binary\n")
    venv = home / ".cache" / "claw-mcp" / "venv"
    (venv / "bin").mkdir(parents=True)
    os.symlink(pyenv / "bin" / "python3.11", venv / "bin" / "python3")
    _file(venv / "pyvenv.cfg", f"home = {pyenv / 'bin'}\nversion = 3.11.7\n", 0o644)
    script = _file(venv / "bin" / "mcp-server-time", f"#!{venv / 'bin' / 'python3'}\nimport sys\n")

    needs = derive(str(script), [], {"HOME": str(home)}, cwd=tmp_path, hidden=[home])
    assert venv in needs.read_only and pyenv in needs.read_only, needs
    assert home not in needs.read_only and home not in needs.writable


def test_a_prefix_that_would_show_the_home_is_narrowed_to_the_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    tool = _file(home / "bin" / "my-server", "#!/bin/sh\n")  # the prefix of ~/bin is the home itself
    needs = derive(str(tool), [str(home)], {"HOME": str(home)}, cwd=tmp_path, hidden=[home])
    assert needs.read_only == [home / "bin"], needs
    assert needs.writable == [], "a directory argument that is the home is not shown"


def test_a_node_package_needs_its_whole_node_modules_and_npx_its_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    modules = tmp_path / "lib" / "node_modules"
    entry = _file(modules / "@scope" / "server" / "dist" / "index.js", "#!/usr/bin/env node\n")
    _file(modules / "@modelcontextprotocol" / "sdk" / "package.json", "{}", 0o644)
    needs = derive(str(entry), [], {"HOME": str(home)}, cwd=tmp_path, hidden=[home])
    assert modules in needs.read_only, needs

    npx = _file(tmp_path / "tools" / "bin" / "npx", "#!/bin/sh\n")
    cache = tmp_path / "npm-cache"
    needs = derive(
        str(npx),
        ["-y", "@scope/server"],
        {"HOME": str(home), "npm_config_cache": str(cache)},
        cwd=tmp_path,
        hidden=[home],
    )
    assert cache in needs.writable and cache.is_dir(), needs
    needs = derive(str(npx), ["-y", "@scope/server"], {"HOME": str(home)}, cwd=tmp_path, hidden=[home])
    assert home / ".npm" in needs.writable, "the default cache, inside the hidden home, shown by itself"


def test_uvx_needs_its_caches_and_the_python_it_runs_tools_with(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pyenv = home / ".pyenv" / "versions" / "3.12.4"
    python = _file(pyenv / "bin" / "python3.12", "#!binary\n")
    os.symlink(python, pyenv / "bin" / "python3")
    uvx = _file(tmp_path / "tools" / "bin" / "uvx", "#!binary\n")  # uv's standalone binary, no venv around it
    env = {"HOME": str(home), "PATH": f"{tmp_path / 'nothing'}:{pyenv / 'bin'}", "UV_CACHE_DIR": str(tmp_path / "uv")}
    needs = derive(str(uvx), ["mcp-server-time"], env, cwd=tmp_path, hidden=[home])
    assert tmp_path / "uv" in needs.writable and pyenv in needs.read_only, needs
    assert home not in needs.read_only
    other = _file(tmp_path / "py" / "bin" / "python3.13", "#!binary\n")
    needs = derive(str(uvx), [], {**env, "UV_PYTHON": str(other)}, cwd=tmp_path, hidden=[home])
    assert tmp_path / "py" in needs.read_only and pyenv not in needs.read_only, needs


def test_file_arguments_show_their_folder_and_directory_arguments_are_writable(tmp_path: Path) -> None:
    script = _file(tmp_path / "scripts" / "server.py", "print()\n", 0o644)
    notes = tmp_path / "notes"
    notes.mkdir()
    needs = derive("/usr/bin/python3", ["scripts/server.py", str(notes), "--port", "3"], {}, cwd=tmp_path, hidden=[])
    assert script.parent in needs.read_only and notes in needs.writable, needs


def test_the_cache_locations_pass_to_the_server_but_nothing_else() -> None:
    environ = {"npm_config_cache": "/c/npm", "UV_CACHE_DIR": "/c/uv", "OPENAI_API_KEY": "sk-secret"}
    env = server_environment({"UV_CACHE_DIR": "/mine"}, environ)
    assert env == {"npm_config_cache": "/c/npm", "UV_CACHE_DIR": "/mine"}
