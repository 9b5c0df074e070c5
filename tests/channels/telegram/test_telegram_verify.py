"""A Telegram webhook request with a wrong secret token is a guess the server's failed-auth limiter counts
(the ingress reports what `VerifyError.presented` carries, as for a bad webhook signature); one without
any secret is refused without being counted, as a credential-less request is everywhere else."""

from __future__ import annotations

import pytest

from claw.channels.adapter import VerifyError
from claw.channels.telegram.adapter import SECRET_HEADER, TelegramAdapter
from claw.settings.channels import TelegramAccount

SECRET = "tg-secret_0123456789"


def _adapter() -> TelegramAdapter:
    settings = TelegramAccount(bot_token="123:abc", mode="webhook", webhook_secret=SECRET)
    return TelegramAdapter("default", settings)


def test_a_wrong_secret_is_presented_for_the_limiter_and_a_missing_one_is_not() -> None:
    adapter = _adapter()
    with pytest.raises(VerifyError) as wrong:
        adapter.verify({SECRET_HEADER: "a-guess"}, b"{}")
    assert wrong.value.status == 401 and wrong.value.presented == "a-guess"
    with pytest.raises(VerifyError) as missing:
        adapter.verify({}, b"{}")
    assert missing.value.status == 401 and missing.value.presented is None
    adapter.verify({SECRET_HEADER: SECRET}, b"{}")  # the right one passes
