"""The Textual console (`claw chat`): screens, widgets (one per file, grouped by pane) and `claw.tcss`.

Nothing here touches the store or the runtime: every read and write goes through a
`GatewayClient`, so the same app runs against an in-process gateway or a remote one.
Importing this package imports textual; the CLI does so only inside the `chat` command.
"""
