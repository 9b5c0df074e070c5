"""Skills: folders with a SKILL.md that teach the agent how to do a kind of task.

`parse` reads one SKILL.md, `discovery` finds them across the four locations,
`gating` decides which are usable for a message, `prompt` renders the
`<available_skills>` list, `snapshot` keeps that list per session, and
`extension` plugs all of it into the gateway.
"""
