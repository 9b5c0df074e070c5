"""`claw doctor`: health checks of a claw home that explain themselves, and the repairs that are always safe.

`finding` is what a check reports; `state` checks what is on disk (home, modes, token, config, temp
files), `workspace` the bootstrap files, `services` the model endpoints and a running gateway,
`agent` the sessions, skills, hooks and memory index; `repair` is `--fix`. The command itself is
claw/cli/doctor.py.
"""
