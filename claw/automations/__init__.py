"""Automations: agent turns on a schedule (cron in a time zone, intervals, one-shots), run by the gateway.

`extension` plugs them in; `manager` is the one object behind the RPC methods, the tool and the
scheduler; `ledger` and `store` keep jobs and runs in gateway.db; `cron_expr` and `schedule` decide
when a job fires; `executor` runs one claimed slot; `scheduler` is the gateway service.
"""
