"""claw.redact: which keys are secret, and URLs and config values made safe to print."""

from __future__ import annotations

import pytest

from claw.redact import REDACTED, is_secret_key, mask_secrets, redact_url, redact_urls


@pytest.mark.parametrize(
    "key", ["secret", "apiKey", "api_key", "OPENAI_API_KEY", "botToken", "webhookSecret", "token", "dbPassword"]
)
def test_secret_keys(key: str) -> None:
    assert is_secret_key(key)


@pytest.mark.parametrize(
    "key",
    ["secretEnv", "apiKeyEnv", "botTokenEnv", "maxTokens", "contextTokens", "keepRecentTokens", "key", "tokenizer"],
)
def test_keys_that_are_not_secret(key: str) -> None:
    assert not is_secret_key(key)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:pass@host:8080/v1", "http://***@host:8080/v1"),
        ("https://sk-only-a-token@api.example.com/v1", "https://***@api.example.com/v1"),
        ("http://host/v1?api_key=abc&model=x", f"http://host/v1?api_key={REDACTED}&model=x"),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
        ("not a url at all", "not a url at all"),
        ("http://[::1", "http://[::1"),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_redact_urls_in_free_text() -> None:
    text = "cannot reach http://alice:pw@10.0.0.1/v1 (via ws://bob@gw:1/), see https://example.com/a@b"
    assert redact_urls(text) == "cannot reach http://***@10.0.0.1/v1 (via ws://***@gw:1/), see https://example.com/a@b"


def test_mask_secrets_walks_tables_and_lists() -> None:
    value = {
        "hooks": {"ci": {"secret": "s", "secretEnv": "CI_SECRET", "replyUrl": "https://u:p@h/r"}},
        "accounts": [{"botToken": "t"}, {"botToken": None}],
        "maxTokens": 5,
    }
    assert mask_secrets(value) == {
        "hooks": {"ci": {"secret": REDACTED, "secretEnv": "CI_SECRET", "replyUrl": "https://***@h/r"}},
        "accounts": [{"botToken": REDACTED}, {"botToken": None}],
        "maxTokens": 5,
    }
    assert mask_secrets("sk-123", "apiKey") == REDACTED
    assert mask_secrets("openai/gpt-4o", "model") == "openai/gpt-4o"
