"""The lines of `claw doctor model` after the endpoint's: each one request (or two) and its verdict.

Every line has a fix that names the server's own flag or variable when the server is known
(`claw.doctor.model_fixes`). A call that fails outright (a `ModelError`, the timeout) fails its line
with the server's own message and the rest go on: one broken feature does not hide the others.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from claw.agent.tokens import estimate_json
from claw.doctor.model_fixes import streaming_fix, text_tools_fix, tools_fix, window_fix
from claw.doctor.model_reply import Reply, stream_reply
from claw.finding import Finding, fail, ok, warn
from claw.providers.base import ChatRequest, ModelError
from claw.providers.openai_compat import KEYLESS_PROVIDERS
from claw.providers.truncation import looks_truncated
from claw.usage.prices import is_local

if TYPE_CHECKING:
    from claw.doctor.model_target import ModelReport, Target

TOOL_NAME = "echo"
TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": "Echo a text back to the user.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
}
OFFERED = {TOOL_NAME: TOOL["function"]["parameters"]}
NAMES = ("endpoint", "stream", "tool call", "context window", "long prompt", "reasoning")
"""Every line of `claw doctor model`, in order (the endpoint's is `claw.doctor.model`'s)."""
TIMED_OUT = "(timed out)"
SLOW_REPLY_TOKENS = 40
"""The reply the tool-call request asks for (a call with a short argument), in tokens."""
PROBE_SHARE = 0.9
"""The long prompt fills this share of what the budget lets a prompt take (the window less the reserve)."""
_FILLER = "Line {n}: the committee read the quarterly report again and agreed to meet next week about it.\n"


async def run(target: Target, report: ModelReport, probe_tokens: int | None) -> None:
    """Append the stream, tool call, window, long prompt and reasoning lines to `report`."""
    replies: list[Reply] = []
    report.findings.append(await _stream(target, report, replies))
    if not replies and report.findings[-1].detail.endswith(TIMED_OUT):  # each call would wait as long again
        fix = f"fix the stream line first (or give the model longer: --timeout {target.timeout * 4:g})"
        report.findings += [warn(name, "skipped: the stream line timed out", fix) for name in NAMES[2:]]
        return
    report.findings.append(await _tool_call(target, report, replies, new_token()))
    report.findings.append(_window(target, report))
    report.findings.append(await _long_prompt(target, report, replies, new_token(), probe_tokens))
    report.findings.append(_reasoning(report, replies))


@dataclass(frozen=True, slots=True)
class NoReply:
    """Why a call gave no reply: the server's error, or the `--timeout`."""

    message: str
    timed_out: bool = False


async def _call(target: Target, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply | NoReply:
    request = ChatRequest(target.model.model, messages, tools, extra_body=target.extra_body)
    try:
        return await stream_reply(target.provider, request, target.timeout)
    except ModelError as exc:
        return NoReply(exc.message)
    except TimeoutError:
        return NoReply(f"no reply within {target.timeout:g} s", timed_out=True)


async def _stream(target: Target, report: ModelReport, replies: list[Reply]) -> Finding:
    reply = await _call(target, [{"role": "user", "content": "Say hello in one short sentence."}], [])
    if isinstance(reply, NoReply):
        if reply.timed_out:
            detail = f"{reply.message} {TIMED_OUT}"
            return fail("stream", detail, "is the model loading or the machine busy? try again, or --timeout")
        return fail("stream", f"the reply failed: {reply.message}", streaming_fix(target.kind))
    replies.append(reply)
    if reply.empty:
        detail = f"no streamed reply: {reply.chunks} chunks with no text (the server may not stream stream=true)"
        return fail("stream", detail, streaming_fix(target.kind))
    tokens, estimated = reply.output_tokens()
    rate = reply.tokens_per_second()
    first_ms = (reply.first_s or 0.0) * 1000
    prompt_rate = reply.prompt_tokens_per_second()
    report.stats["stream"] = {
        "firstTokenMs": round(first_ms, 1),
        "tokensPerSecond": round(rate, 1),
        "promptTokensPerSecond": round(prompt_rate, 1) if prompt_rate else None,
        "outputTokens": tokens,
        "estimated": estimated,
    }
    counted = " (estimated: the server reports no usage)" if estimated else ""
    over = f"{tokens} token" if tokens == 1 else f"{tokens} tokens"
    read = f"; prompt read at ~{prompt_rate:,.0f} tokens/s" if prompt_rate else ""
    return ok("stream", f"first token in {first_ms:,.0f} ms, {rate:,.0f} tokens/s over {over}{counted}{read}")


def _slow(target: Target, report: ModelReport, prompt_tokens: int) -> Finding | None:
    """The tool-call line when the request timed out because the machine is slow, not for want of tool support:
    the stream line's measured speeds say a `prompt_tokens` prompt and a short reply take most of the timeout."""
    speed = report.stats.get("stream") or {}
    prompt_rate, rate = speed.get("promptTokensPerSecond"), speed.get("tokensPerSecond")
    if not prompt_rate or not rate:
        return None
    needed = prompt_tokens / prompt_rate + SLOW_REPLY_TOKENS / rate
    if needed < target.timeout / 2:
        return None
    detail = (
        f"no reply within {target.timeout:g} s to a request with tools, and the server is slow: prompt read at "
        f"~{prompt_rate:,.0f} tokens/s, generation ~{rate:,.0f} tokens/s, so this ~{prompt_tokens:,}-token request "
        f"needs ~{needed:,.0f} s"
    )
    return fail(
        "tool call",
        detail,
        f"give it longer (--timeout {max(needed * 3, target.timeout * 2):.0f}), or a "
        "faster machine or smaller model; tool support is not what failed",
    )


async def _tool_call(target: Target, report: ModelReport, replies: list[Reply], token: str) -> Finding:
    ask = [{"role": "user", "content": f'Call the {TOOL_NAME} tool with text "{token}". Do not answer in prose.'}]
    reply = await _call(target, ask, [TOOL])
    if isinstance(reply, NoReply):
        report.stats["toolCalls"] = None
        slow = _slow(target, report, _prompt_tokens(ask, [TOOL])) if reply.timed_out else None
        if slow is not None:
            return slow
        detail = (
            f"{reply.message} to a request with tools"
            if reply.timed_out
            else (f"the server refused a request with tools: {reply.message}")
        )
        return fail("tool call", detail, tools_fix(target.kind, target.model.model))
    replies.append(reply)
    if reply.calls:
        call = reply.calls[min(reply.calls)]
        name, arguments, fmt = call["name"], call["arguments"] or "{}", "native"
    else:
        found = reply.text_calls(OFFERED)
        if found is None:
            report.stats["toolCalls"] = None
            said = (reply.text or reply.markup).strip().replace("\n", " ")[:60]
            detail = f"no tool call: the model answered in prose ({said!r})" if said else "no tool call and no text"
            return fail("tool call", detail, tools_fix(target.kind, target.model.model))
        fmt, calls = found
        name, arguments = calls[0].name, calls[0].arguments
        if calls[0].error:
            report.stats["toolCalls"] = fmt
            return fail(
                "tool call",
                f"a {fmt} call as text, but unusable: {calls[0].error}",
                tools_fix(target.kind, target.model.model),
            )
    report.stats["toolCalls"] = fmt
    bad = _bad_call(name, arguments, token)
    if bad:
        return fail("tool call", f"{fmt} call, but {bad}", tools_fix(target.kind, target.model.model))
    back = await _call(target, [*ask, *_result_messages(arguments, token)], [TOOL])
    if isinstance(back, NoReply) or back.empty:
        why = back.message if isinstance(back, NoReply) else "an empty reply"
        detail = f"{fmt} call to {TOOL_NAME}, but sending its result back failed: {why}"
        return fail("tool call", detail, tools_fix(target.kind, target.model.model))
    replies.append(back)
    if fmt != "native":
        detail = f"the model wrote its call as text ({fmt} format); claw read it, and the result went back"
        return warn("tool call", detail, text_tools_fix(target.kind, fmt, target.ref))
    return ok(
        "tool call", f"native tool_calls: {TOOL_NAME} was called with the text asked for, and its result answered"
    )


def _prompt_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    """A request's prompt tokens as claw estimates them, with the chat template's few per message."""
    return estimate_json(messages) + estimate_json(tools) + 10 * len(messages) + 40


def _bad_call(name: str, arguments: str, token: str) -> str | None:
    if name != TOOL_NAME:
        return f"to {name!r}, not the {TOOL_NAME} tool offered"
    try:
        args = json.loads(arguments)
    except ValueError:
        return f"its arguments are not valid JSON ({arguments[:60]!r})"
    if not isinstance(args, dict) or token not in str(args.get("text", "")):
        return f"its arguments do not carry the text asked for ({arguments[:60]!r})"
    return None


def _result_messages(arguments: str, token: str) -> list[dict[str, Any]]:
    """The call and its result, as claw's history sends them back (claw/agent/history.py)."""
    call = {"id": "call_doctor_1", "type": "function", "function": {"name": TOOL_NAME, "arguments": arguments}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_doctor_1", "content": token},
    ]


_SOURCES = {
    "config": "from config",
    "server": "as the server reports",
    "known": "known model",
    "default": "claw's default",
}


def _window(target: Target, report: ModelReport) -> Finding:
    kind, reported, window, source = target.kind, target.reported, target.window, target.window_source
    report.stats["window"] = {"serverKind": kind, "reported": reported, "budget": window, "source": source,
                              "mode": target.mode, "fixedPromptTokens": target.fixed_tokens}  # fmt: skip
    share = ""
    if target.fixed_tokens:
        mode = "small-window mode" if target.mode == "small" else "full prompt"
        share = (f"; claw's fixed prompt ({mode}) takes ~{target.fixed_tokens:,} tokens, "
                 f"{100 * target.fixed_tokens / window:.0f}% of it")  # fmt: skip
    budget = f"claw budgets {window:,} ({_SOURCES.get(source, source)})"
    sent = " and sends it as num_ctx" if target.extra_body and "options" in target.extra_body else ""
    if reported is None:
        if source == "default":
            fix = f'claw config set models."{target.ref}".contextWindow <the model\'s window>'
            return warn("context window", f"the server does not say its window; {budget}{share}", fix)
        return ok("context window", f"the server does not say its window; {budget}{share}")
    said = f"the server ({kind}) reports {reported:,}"
    if window > reported and not sent:
        detail = f"{said}, but {budget}: prompts past {reported:,} tokens are cut{share}"
        return warn("context window", detail, window_fix(kind, target.model.model, target.ref, window))
    return ok("context window", f"{said}; {budget}{sent}{share}")


async def _long_prompt(
    target: Target, report: ModelReport, replies: list[Reply], token: str, probe_tokens: int | None
) -> Finding:
    size = probe_tokens if probe_tokens is not None else int((target.window - target.reserve) * PROBE_SHARE)
    if size <= 0:
        return ok("long prompt", "skipped (--probe-tokens 0)")
    hosted = target.kind is None and target.model.provider not in KEYLESS_PROVIDERS and not is_local("", target.url)
    if probe_tokens is None and hosted:
        # A hosted API answers an over-long prompt with an error, not a cut; a prompt near its window costs money.
        # A server on this machine (loopback) is never hosted, whatever answered the probe for its kind.
        return ok("long prompt", f"skipped for a hosted endpoint (--probe-tokens {min(size, 8000)} runs it)")
    prompt = _marked_prompt(token, size)
    estimated = -(-len(prompt) // 4)
    reply = await _call(target, [{"role": "user", "content": prompt}], [])
    fix = window_fix(target.kind, target.model.model, target.ref, target.window)
    if isinstance(reply, NoReply) and reply.timed_out:  # a real model evaluates a long prompt slowly
        smaller = f"--timeout {target.timeout * 4:g}, or a smaller check: --probe-tokens {min(size, 8000) // 2}"
        return warn("long prompt", f"{reply.message} to a ~{estimated:,}-token prompt", f"give it longer: {smaller}")
    if isinstance(reply, NoReply):
        return fail("long prompt", f"a ~{estimated:,}-token prompt failed: {reply.message}", fix)
    replies.append(reply)
    counted = reply.usage.input_tokens if reply.usage is not None else 0
    survived = token in " ".join((reply.text, reply.markup, reply.reasoning, reply.think))
    cut = looks_truncated(counted, estimated)
    report.stats["longPrompt"] = {
        "estimatedTokens": estimated,
        "reportedTokens": counted or None,
        "markerSurvived": survived,
        "truncated": cut,
    }
    tally = f"the server counted {counted:,} of ~{estimated:,} tokens" if counted else "the server reports no usage"
    if cut:
        return fail("long prompt", f"truncated: {tally}; the start of the prompt was dropped", fix)
    if survived:
        return ok(
            "long prompt", f"a ~{estimated:,}-token prompt arrived whole: the marker at its start came back; {tally}"
        )
    if counted:
        detail = f"the model did not repeat the marker from the start of a ~{estimated:,}-token prompt, though {tally}"
        return warn(
            "long prompt",
            detail,
            "a small model may ignore the instruction; if replies forget the system prompt, " + fix,
        )
    return fail(
        "long prompt", f"the marker at the start of a ~{estimated:,}-token prompt did not come back; {tally}", fix
    )


def _marked_prompt(token: str, tokens: int) -> str:
    """`tokens` (at ~4 chars each) of prose, the code word first and the question about it last."""
    head = f"The code word is {token}. Remember it: you will be asked for it at the end.\n\n"
    tail = "\nWhat is the code word given at the very start of this message? Reply with the code word only."
    lines, chars, n = [head], len(head) + len(tail), 0
    while chars < tokens * 4:
        n += 1
        line = _FILLER.format(n=n)
        lines.append(line)
        chars += len(line)
    return "".join([*lines, tail])


def _reasoning(report: ModelReport, replies: list[Reply]) -> Finding:
    fields = any(r.reasoning for r in replies)
    tags = any(r.think for r in replies)
    report.stats["reasoning"] = "reasoning_content" if fields else "think tags" if tags else None
    if fields:
        return ok("reasoning", "reasoning_content deltas: claw keeps them apart from the reply (the thinking stream)")
    if tags:
        return ok("reasoning", "<think> blocks in the reply text: claw splits them out of the reply")
    return ok("reasoning", "none seen (this model or server streams no reasoning)")


def new_token() -> str:
    """A word no model guesses: what the tool call and the long prompt must bring back."""
    return f"claw-{secrets.token_hex(4)}"
