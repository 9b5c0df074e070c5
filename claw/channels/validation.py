"""`first_problem`: why a platform's payload did not validate, as the one line a log or a 400 answer shows."""

from __future__ import annotations

from pydantic import ValidationError


def first_problem(exc: ValidationError, whole: str) -> str:
    """The first problem, naming its field (`message.chat.id: Field required`), or `whole` — what the payload
    is called — when it is the payload itself that is wrong (`update: Input should be a valid dictionary`)."""
    err = exc.errors()[0]
    return f"{'.'.join(str(p) for p in err['loc']) or whole}: {err['msg']}"
