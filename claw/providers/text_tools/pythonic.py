"""Llama 3.x: `<|python_tag|>` then JSON or a call, and the pythonic `[fn(a=1), other(b="x")]`.

Read with `ast`, never evaluated: only literal arguments (`ast.literal_eval` of each keyword value)."""

from __future__ import annotations

import ast
import json

from claw.providers.text_tools.call import Offered, TextCall, checked, from_object, malformed

PYTHON_TAG = "<|python_tag|>"
_END_TAGS = ("<|eom_id|>", "<|eot_id|>")


def parse(markup: str, offered: Offered) -> tuple[list[TextCall], str] | None:
    """Pythonic calls; None when `markup` is not a list of calls (it is the reply's text then)."""
    try:
        tree = ast.parse(markup.strip(), mode="eval").body
    except SyntaxError:
        return None
    nodes = tree.elts if isinstance(tree, ast.List) else [tree]
    if not nodes or not all(isinstance(n, ast.Call) for n in nodes):
        return None
    return [_call(node, offered) for node in nodes if isinstance(node, ast.Call)], ""


def parse_tagged(markup: str, offered: Offered) -> tuple[list[TextCall], str]:
    """What follows `<|python_tag|>`: JSON objects (`;`-separated) or pythonic calls."""
    body = markup.split(PYTHON_TAG, 1)[1]
    for tag in _END_TAGS:
        body = body.replace(tag, "")
    body = body.strip()
    if body.startswith("{"):
        calls: list[TextCall] = []
        decoder, pos = json.JSONDecoder(), 0
        while pos < len(body):
            try:
                value, pos = decoder.raw_decode(body, pos)
            except ValueError:
                return [*calls, malformed(f"{PYTHON_TAG} holds no valid JSON")], ""
            calls.append(from_object(value, offered))
            pos = len(body) - len(body[pos:].lstrip(" \n;"))
        return calls, ""
    parsed = parse(body, offered)
    return parsed if parsed is not None else ([malformed(f"{PYTHON_TAG} holds neither JSON nor a call")], "")


def _call(node: ast.Call, offered: Offered) -> TextCall:
    name = ast.unparse(node.func)
    if node.args:
        return TextCall(name, "{}", f"the call to {name} must name its arguments (name=value)")
    args = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return TextCall(name, "{}", f"the call to {name} uses ** arguments")
        try:
            args[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            return TextCall(name, "{}", f"argument {keyword.arg} of {name} is not a literal value")
    return checked(name, args, offered)
