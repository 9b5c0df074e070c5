// OpenClaw's own client library, openclaw-node, driving a claw gateway (tests/interop/test_openclaw_node.py).
// argv: <openclaw-node entry> <gateway url> <token> <identity file>; prints one JSON line per step.
const [entry, url, token, identityPath] = process.argv.slice(2);
const { OpenClawClient } = await import(entry);
const say = (step, value) => console.log(JSON.stringify({ step, ...value }));

const client = new OpenClawClient({ url, token, autoReconnect: false, deviceIdentityPath: identityPath });
const hello = await client.connect();
say("hello", { protocol: hello.protocol, scopes: hello.auth?.scopes, methods: client.availableMethods.length });

const chunks = [];
for await (const chunk of client.chat("hello from openclaw-node")) chunks.push(chunk);
say("chat", { chunks });
say("final", { result: await client.agentWait(chunks[0].runId, { timeoutMs: 10000 }) });

say("sessions", { sessions: await client.sessions.list() });
await client.disconnect();

const intruder = new OpenClawClient({ url, token: "not-the-token", autoReconnect: false, deviceIdentityPath: identityPath });
intruder.on("error", () => {});
try {
  await intruder.connect();
  say("intruder", { connected: true });
} catch (error) {
  say("intruder", { connected: false, error: String(error?.message ?? error) });
}
process.exit(0);
