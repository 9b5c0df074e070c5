"""`claw doctor model`: against a well-behaved scripted local server all lines pass; against each broken one
the right line fails (or warns) with the right fix. Real sockets, the real `openai` client, claw's provider."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from claw.config import Config, ConfigFile
from claw.doctor.model import NAMES, ModelReport, doctor_model
from tests.support.doctor_models import TEXT_CALLS, DoctorModel
from tests.support.fixtures import ClawEnv
from tests.support.local_servers import LocalServer
from tests.support.model_server import RecordedRequest, Reply, ScriptedModelServer, hang
from tests.support.processes import run_claw

MODEL = "qwen3:8b"
REF = f"ollama/{MODEL}"


def _serve(model: DoctorModel, kind: str = "ollama", window: int = 8192) -> ScriptedModelServer:
    return ScriptedModelServer(models=(MODEL,), default=model, local=LocalServer(kind, window))


async def _doctor(
    server: ScriptedModelServer, ref: str = REF, provider: str = "ollama", timeout: float = 5.0, **kw: object
) -> dict[str, tuple[str, str, str | None]]:
    config = Config(
        ConfigFile.model_validate({"providers": {provider: {"baseUrl": server.base_url}}}),
        path=Path("config.toml"),
        environ={},
    )
    report: ModelReport = await doctor_model(config, "main", ref, timeout=timeout, **kw)  # type: ignore[arg-type]
    assert [f.name for f in report.findings] == list(NAMES)
    return {f.name: (f.status, f.detail, f.fix) for f in report.findings}


def _write_config(env: ClawEnv, server: ScriptedModelServer, extra: str = "") -> None:
    (env.home / "config.toml").write_text(f'[providers.ollama]\nbaseUrl = "{server.base_url}"\n{extra}', "utf-8")


def test_a_well_behaved_server_passes_every_line(claw_env: ClawEnv) -> None:
    with _serve(DoctorModel()) as server:
        _write_config(claw_env, server)
        done = run_claw(claw_env.env, "doctor", "model", REF)
        chats = server.chat_requests
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"{REF} at {server.base_url}"
    assert [line[0] for line in lines[1:7]] == ["✓"] * 6 and lines[7] == "6 ok, 0 warnings, 0 failed"
    assert [line[2:].split("  ")[0].strip() for line in lines[1:7]] == list(NAMES)
    assert "native tool_calls" in lines[3] and "reports 8,192; claw budgets 8,192" in lines[4]
    assert "arrived whole: the marker at its start came back" in lines[5]
    assert lines[-1].startswith("took ")
    # stream, tool call, its result, the long prompt: each with the num_ctx a turn sends to Ollama
    assert len(chats) == 4 and all(chat.body["options"] == {"num_ctx": 8192} for chat in chats)
    assert chats[2].messages[-1]["role"] == "tool" and chats[3].messages[0]["content"].startswith("The code word is")


def test_json_has_the_same_lines_and_the_numbers(claw_env: ClawEnv) -> None:
    with _serve(DoctorModel()) as server:
        _write_config(claw_env, server)
        done = run_claw(claw_env.env, "doctor", "model", REF, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True and report["model"] == REF and report["endpoint"] == server.base_url
    assert [c["name"] for c in report["checks"]] == list(NAMES)
    assert {c["status"] for c in report["checks"]} == {"ok"}
    stats = report["stats"]
    assert stats["toolCalls"] == "native" and stats["reasoning"] is None
    window = stats["window"]
    assert window.pop("mode") == "small" and 0 < window.pop("fixedPromptTokens") < 8192 * 0.3
    assert window == {"serverKind": "ollama", "reported": 8192, "budget": 8192, "source": "server"}
    assert stats["longPrompt"]["markerSurvived"] is True and stats["longPrompt"]["truncated"] is False
    assert stats["stream"]["firstTokenMs"] >= 0 and stats["stream"]["tokensPerSecond"] > 0


def test_an_endpoint_that_is_down_says_so_at_once(claw_env: ClawEnv) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    (claw_env.home / "config.toml").write_text(f'[providers.ollama]\nbaseUrl = "http://127.0.0.1:{port}/v1"\n')
    done = run_claw(claw_env.env, "doctor", "model", REF)
    assert done.returncode == 1 and done.stderr == ""
    lines = done.stdout.splitlines()
    # "At once" is judged by what the doctor did, not by a clock a loaded machine can miss: it gave up on the
    # refused connection itself (httpx's "All connection attempts failed"), not on the 5 s list timeout, which
    # it reports as "(no answer)".
    assert lines[1].startswith("✗ endpoint"), lines
    assert lines[1].endswith(f"cannot reach http://127.0.0.1:{port}/v1 (All connection attempts failed)"), lines[1]
    assert lines[-1].startswith("took "), lines[-1]
    assert "→ start the server, or point claw at it: providers.ollama.baseUrl" in lines[2]
    assert all("skipped: the endpoint line failed" in line for line in lines[3:-2] if not line.lstrip().startswith("→"))


def test_no_model_configured_is_one_line_and_exit_2(claw_env: ClawEnv) -> None:
    env = {k: v for k, v in claw_env.env.items() if k != "CLAW_MODEL"}
    done = run_claw(env, "doctor", "model")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("claw: no model configured") and len(done.stderr.splitlines()) == 1


async def test_no_such_model() -> None:
    with _serve(DoctorModel()) as server:
        lines = await _doctor(server, "ollama/nope")
        assert server.chat_requests == []
    status, detail, fix = lines["endpoint"]
    assert status == "fail" and "does not serve 'nope' (it lists qwen3:8b)" in detail
    assert fix == f"ollama pull nope, or use one it serves: claw doctor model {REF}"
    assert {lines[name][0] for name in NAMES[1:]} == {"warn"}


async def test_a_server_that_does_not_stream() -> None:
    with _serve(DoctorModel(stream=False)) as server:
        lines = await _doctor(server)
    status, detail, fix = lines["stream"]
    assert status == "fail" and detail.startswith("no streamed reply") and fix and "update Ollama" in fix


async def test_a_model_without_tool_support_is_refused() -> None:
    with _serve(DoctorModel(tools="refuse")) as server:
        lines = await _doctor(server)
    status, detail, fix = lines["tool call"]
    assert status == "fail" and "does not support tools" in detail
    assert fix and fix.startswith(f"`ollama show {MODEL}` must list `tools`")
    assert lines["stream"][0] == lines["long prompt"][0] == "ok"  # one broken feature hides no other


async def test_a_model_that_ignores_the_tools() -> None:
    with _serve(DoctorModel(tools="prose"), kind="vllm", window=40_960) as server:
        lines = await _doctor(server, "vllm/qwen3:8b", provider="vllm")
    status, detail, fix = lines["tool call"]
    assert status == "fail" and "answered in prose ('I would rather just talk.')" in detail
    assert fix and "--enable-auto-tool-choice --tool-call-parser" in fix


@pytest.mark.parametrize("fmt", sorted(TEXT_CALLS))
async def test_tool_calls_written_as_text_name_their_parser(fmt: str) -> None:
    with _serve(DoctorModel(tools=fmt)) as server:
        lines = await _doctor(server)
        chats = server.chat_requests
    status, detail, fix = lines["tool call"]
    assert status == "warn", detail
    assert f"as text ({fmt} format)" in detail and fix and f'toolCallFormat = "{fmt}"' in fix
    assert chats[2].messages[-1] == {"role": "tool", "tool_call_id": "call_doctor_1", "content": _token(chats[1])}


async def test_a_call_sent_again_whole_is_read_as_a_turn_reads_it() -> None:
    """Some servers repeat the finished call in their last chunk: a turn reads one call (ToolCallParts), and
    so must the doctor, rather than glue the arguments twice into JSON that does not parse."""
    with _serve(DoctorModel(tools="resent")) as server:
        lines = await _doctor(server)
        chats = server.chat_requests
    status, detail, _fix = lines["tool call"]
    assert status == "ok", detail
    assert json.loads(chats[2].messages[-2]["tool_calls"][0]["function"]["arguments"]) == {"text": _token(chats[1])}


def _token(request: object) -> str:
    from tests.support.doctor_models import TOKEN

    found = TOKEN.search(request.messages[-1]["content"])  # type: ignore[attr-defined]
    assert found
    return found.group(0)


async def test_a_truncating_server_fails_the_long_prompt() -> None:
    with _serve(DoctorModel(keep_tokens=2048)) as server:
        lines = await _doctor(server)
    status, detail, fix = lines["long prompt"]
    assert status == "fail" and detail.startswith("truncated: the server counted")
    assert fix and "OLLAMA_CONTEXT_LENGTH=8192" in fix and 'models."ollama/qwen3:8b".contextWindow' in fix
    assert lines["context window"][0] == "ok"


async def test_a_truncating_server_that_reports_no_usage_loses_the_marker() -> None:
    with _serve(DoctorModel(keep_tokens=2048, report_usage=False), kind="llamacpp") as server:
        lines = await _doctor(server, "llamacpp/qwen3:8b", provider="llamacpp")
    status, detail, fix = lines["long prompt"]
    assert status == "fail" and "did not come back; the server reports no usage" in detail
    assert fix and fix.startswith("start llama-server with -c 8192")
    assert "estimated: the server reports no usage" in lines["stream"][1]


@pytest.mark.parametrize(
    ("model", "said"),
    [
        (DoctorModel(reasoning="The user wants a greeting."), "reasoning_content deltas"),
        (DoctorModel(think="a greeting, then"), "<think> blocks in the reply text"),
        (DoctorModel(), "none seen"),
    ],
)
async def test_reasoning_output_is_detected(model: DoctorModel, said: str) -> None:
    with _serve(model) as server:
        lines = await _doctor(server)
    assert lines["reasoning"][0] == "ok" and lines["reasoning"][1].startswith(said)
    assert lines["long prompt"][0] == lines["tool call"][0] == "ok"


async def test_ollama_reached_as_openai_gets_its_window_and_num_ctx() -> None:
    with _serve(DoctorModel()) as server:
        lines = await _doctor(server, MODEL, provider="openai")
    status, detail, _fix = lines["context window"]
    assert status == "ok" and "the server (ollama) reports 8,192; claw budgets 8,192 (as the server reports)" in detail
    assert "and sends it as num_ctx" in detail and "small-window mode" in detail


async def test_a_model_that_never_answers_costs_one_timeout() -> None:
    with ScriptedModelServer(models=(MODEL,), default=lambda _r: hang(), local=LocalServer("ollama", 8192)) as server:
        lines = await _doctor(server, timeout=2)
        assert len(server.chat_requests) == 1  # one call waited out; every later line skipped without a call
    assert lines["stream"][0] == "fail" and lines["stream"][1] == "no reply within 2 s (timed out)"
    assert {lines[name][1] for name in NAMES[2:]} == {"skipped: the stream line timed out"}


async def test_a_long_prompt_too_slow_for_the_timeout_says_how_to_shorten_it() -> None:
    model = DoctorModel()

    def slow_on_long_prompts(request: RecordedRequest) -> Reply:
        return hang() if "code word" in str(request.messages[-1].get("content")) else model(request)

    with ScriptedModelServer(
        models=(MODEL,), default=slow_on_long_prompts, local=LocalServer("ollama", 8192)
    ) as server:
        lines = await _doctor(server, timeout=2)
    status, detail, fix = lines["long prompt"]
    assert status == "warn" and detail.startswith("no reply within 2 s to a ~")
    assert (
        fix == "give it longer: --timeout 8, or a smaller check: --probe-tokens 2764"
    )  # four times the timeout; half of 90% of 8,192 less the 2,048 reserve
    assert lines["tool call"][0] == "ok"


async def test_the_long_prompt_can_be_sized_or_skipped() -> None:
    with _serve(DoctorModel()) as server:
        sized = await _doctor(server, probe_tokens=1000)
        skipped = await _doctor(server, probe_tokens=0)
    assert sized["long prompt"][0] == "ok" and "-token prompt arrived whole" in sized["long prompt"][1]
    assert 1000 <= int(sized["long prompt"][1].split("~")[1].split("-")[0].replace(",", "")) < 1030  # a line over
    assert skipped["long prompt"] == ("ok", "skipped (--probe-tokens 0)", None)


async def test_a_config_window_is_compared_with_what_the_server_runs() -> None:
    with _serve(DoctorModel(), kind="ollama", window=8192) as server:
        config = Config(
            ConfigFile.model_validate(
                {
                    "providers": {"ollama": {"baseUrl": server.base_url}},
                    "models": {REF: {"contextWindow": 16_384}},
                }
            ),
            path=Path("config.toml"),
            environ={},
        )
        report = await doctor_model(config, "main", REF, timeout=5.0)
        chats = server.chat_requests
    window = next(f for f in report.findings if f.name == "context window")
    assert window.status == "ok"
    assert (
        window.detail.split("; claw's fixed prompt")[0]
        == "the server (ollama) reports 8,192; claw budgets 16,384 (from config) and sends it as num_ctx"
    )
    assert "claw's fixed prompt (full prompt) takes ~" in window.detail
    assert {json.dumps(chat.body["options"]) for chat in chats} == {'{"num_ctx": 16384}'}


async def test_an_unidentified_server_on_this_machine_is_not_taken_for_a_hosted_one() -> None:
    # On the `openai` provider and answering as no known local server: on 127.0.0.1 all the same, so the long
    # prompt runs (it used to be skipped "for a hosted endpoint").
    with ScriptedModelServer(models=("gpt-test",), default=DoctorModel()) as server:
        lines = await _doctor(server, "gpt-test", provider="openai")
        chats = server.chat_requests
    assert lines["long prompt"][0] == "ok" and "-token prompt arrived whole" in lines["long prompt"][1]
    assert len(chats) == 4 and all("options" not in chat.body for chat in chats)
    status, detail, fix = lines["context window"]
    assert status == "warn" and detail.startswith(
        "the server does not say its window; claw budgets 32,000 (claw's default)"
    )
    assert "claw's fixed prompt (full prompt) takes ~" in detail and "% of it" in detail
    assert fix == 'claw config set models."gpt-test".contextWindow <the model\'s window>'
