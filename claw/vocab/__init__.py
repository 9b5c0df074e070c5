"""The shared vocabulary, below the runtime: what the layers above say to each other.

Run events (`run_event`), the inbound message (`msg_context`), session keys (`session_keys`), slash-command
syntax (`command_syntax`) and what an event subscriber may meet (`subscription`). Declared once here and imported
by the runtime, the core, the capabilities and the interfaces alike; these modules import nothing of claw but
`claw.errors`.
"""
