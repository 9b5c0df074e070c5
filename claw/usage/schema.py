"""The usage tables in gateway.db, as numbered migrations of the `usage` area (see `claw.store.db`).

`usage_calls` is append-only, one row per model call. Tokens are stored as the provider reported
them (or estimated, `estimated = 1`); `local` says whether the endpoint was a local server, decided
when the call was made; `cost_at_call` is what the call was priced at then (views re-price from the
tokens, claw/usage/prices.py). `day` is the local calendar date of `ts`, written with the row, so
`claw usage --by day` groups on a stored column instead of converting a million timestamps.
`usage_daily` holds the same sums per local day and (agent, source, job, model): it is kept
in the transaction that inserts each call, so the two never disagree, and views over whole days read
it instead of every call ('' stands for "none" in its key columns, since NULLs never conflict). Sessions
are not in its key (there are as many as there are calls, nearly, for subagents and isolated jobs): a
view of one session, or by session, reads the calls through their session index, which holds every
column such a view sums (a covering index: 0.5 s instead of 4.4 s for `--by session` over 1M calls).
`usage_notices` remembers which budget warnings were given, once per budget and period.
"""

from __future__ import annotations

from claw.store.db import Migration

_CALLS = """
CREATE TABLE usage_calls (
    id INTEGER PRIMARY KEY,
    ts REAL NOT NULL,
    day TEXT NOT NULL,
    agent_id TEXT,
    session_key TEXT,
    run_id TEXT,
    source TEXT NOT NULL,
    job_id TEXT,
    channel TEXT,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    local INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    first_token_ms REAL,
    total_ms REAL NOT NULL,
    cost_at_call REAL
);
CREATE INDEX usage_calls_ts ON usage_calls (ts);
CREATE INDEX usage_calls_agent ON usage_calls (agent_id, ts);
CREATE INDEX usage_calls_job ON usage_calls (job_id, ts) WHERE job_id IS NOT NULL;
CREATE INDEX usage_calls_session ON usage_calls (
    session_key, provider, model, local, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens,
    reasoning_tokens, estimated, ts
);
CREATE INDEX usage_calls_run ON usage_calls (run_id) WHERE run_id IS NOT NULL;
CREATE TABLE usage_daily (
    day TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    source TEXT NOT NULL,
    job_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    local INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    PRIMARY KEY (day, agent_id, source, job_id, provider, model, local)
) WITHOUT ROWID;
CREATE TABLE usage_notices (
    budget TEXT NOT NULL,
    period TEXT NOT NULL,
    created_at REAL NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (budget, period)
)
"""

MIGRATIONS = (Migration("usage", 1, "calls_and_notices", _CALLS),)
