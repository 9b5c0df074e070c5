// claw's web chat: one page over the gateway's WebSocket (./gateway.js). The token comes from the form or
// from a `#token=` fragment (browsers never send fragments to a server; it is removed from the address at
// once) and is kept in sessionStorage, or localStorage when "remember" is ticked.

import { loadDevice } from "./device.js";
import { Gateway } from "./gateway.js";
import { renderMarkdown } from "./markdown.js";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "claw.token";
const SESSION_KEY = "claw.session";
const RECONNECT_MS = 2000;
const PAIRING_RETRY_MS = 3000;

const state = {
  gw: null, token: null, device: null, agent: "main", session: null, pairingTimer: null,
  runs: new Map(),       // runId → {msg, text, tools: Map toolCallId → <details>}
  running: new Set(),    // run ids of the open session not yet ended
  pendingRender: new Set(),
};

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function takeToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = fragment.get("token");
  if (given) {
    history.replaceState(null, "", location.pathname + location.search);
    sessionStorage.setItem(TOKEN_KEY, given);
    return given;
  }
  return sessionStorage.getItem(TOKEN_KEY) || localStorage.getItem(TOKEN_KEY);
}

function showLogin(message) {
  $("app").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message || "";
  $("token").focus();
}

function setStatus(text, connected) {
  $("status").textContent = text;
  $("status").classList.toggle("connected", !!connected);
}

async function connect(token) {
  setStatus("connecting…");
  state.device ??= await loadDevice();
  const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
  const gw = new Gateway(wsUrl);
  let hello;
  try {
    hello = await gw.connect(token, state.device);
  } catch (err) {
    let message = err.message;
    if (!state.device && /device identity required/.test(message)) {
      message += " — open this page over https (or on localhost) so the browser can hold a device key";
    }
    throw new Error(message);
  }
  state.gw = gw;
  state.token = token;
  state.agent = hello.snapshot?.sessionDefaults?.defaultAgentId || "main";
  for (const name of ["agent", "exec.approval.requested", "exec.approval.resolved", "sessions.changed"]) {
    gw.addEventListener(name, (ev) => handlers[name](ev.detail));
  }
  gw.addEventListener("close", () => {
    if (state.gw !== gw) return;
    setStatus("disconnected — reconnecting");
    setTimeout(() => reconnect(), RECONNECT_MS);
  });
  $("login").hidden = true;
  $("app").hidden = false;
  setStatus("connected", true);
  document.body.dataset.connected = "true";
  performance.mark("claw-connected"); // bench/web_pages.py reads it: time to a connected session
  const wanted = localStorage.getItem(SESSION_KEY) || hello.snapshot?.sessionDefaults?.mainSessionKey;
  gw.request("sessions.subscribe", {}).catch(() => {}); // `sessions.changed`: the list stays current
  await Promise.all([openSession(wanted || `agent:${state.agent}:main`), loadSessions()]);
  performance.mark("claw-session-open");
}

async function reconnect() {
  delete document.body.dataset.connected;
  try {
    await connect(state.token);
  } catch (err) {
    if (/unauthorized|token/i.test(err.message)) showLogin(err.message);
    else { setStatus(`disconnected: ${err.message}`); setTimeout(() => reconnect(), RECONNECT_MS); }
  }
}

// --- sessions -------------------------------------------------------------------------------------

async function loadSessions() {
  const listed = await state.gw.request("sessions.list", { agentId: state.agent, limit: 100 });
  const rows = Array.isArray(listed) ? listed : listed.sessions || [];
  if (state.session && !rows.some((r) => r.key === state.session)) rows.unshift({ key: state.session });
  const list = $("sessions");
  list.replaceChildren(...rows.map((row) => {
    const li = el("li", row.key === state.session ? "current" : "", row.displayName || shortKey(row.key));
    li.dataset.key = row.key;
    li.title = row.key;
    if (row.lastMessagePreview) li.append(el("small", "", row.lastMessagePreview));
    li.addEventListener("click", () => {
      $("sidebar").classList.remove("open");
      openSession(row.key);
    });
    return li;
  }));
}

function shortKey(key) {
  return key.replace(/^agent:[^:]+:/, "");
}

async function openSession(key) {
  state.session = key;
  localStorage.setItem(SESSION_KEY, key);
  state.runs.clear();
  state.running.clear();
  updateAbort();
  $("title").textContent = shortKey(key);
  for (const li of $("sessions").children) li.classList.toggle("current", li.dataset.key === key);
  $("log").replaceChildren();
  const history = await state.gw.request("chat.history", { sessionKey: key, limit: 200 });
  if (state.session !== key) return;
  renderHistory(history.messages || []);
  await state.gw.request("sessions.messages.subscribe", { key });
  document.body.dataset.session = key;
}

function renderHistory(messages) {
  const tools = new Map();
  for (const m of messages) {
    const text = textOf(m.content);
    if (m.role === "user") append(el("div", "msg user", text));
    else if (m.role === "assistant") {
      if (text) append(markdown(el("div", "msg assistant"), text));
      for (const call of m.toolCalls || []) tools.set(call.id, append(toolRow(call.name, call.arguments)));
    } else if (m.role === "tool") {
      const row = tools.get(m.toolCallId) || append(toolRow(m.name, ""));
      finishTool(row, text, m.isError);
    }
  }
  scroll(true);
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p.text || "")).join("");
  return "";
}

// --- the conversation -----------------------------------------------------------------------------

function append(node) {
  const log = $("log");
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  log.append(node);
  if (atEnd) scroll(true);
  return node;
}

function scroll(force) {
  const log = $("log");
  if (force) log.scrollTop = log.scrollHeight;
}

function markdown(node, text) {
  node.replaceChildren(renderMarkdown(text));
  return node;
}

function toolRow(name, args) {
  const row = el("details", "tool running");
  const shown = typeof args === "string" ? args : JSON.stringify(args);
  row.append(el("summary", "", `${name} ${brief(shown)}`));
  row.append(el("pre", "args", pretty(shown)));
  return row;
}

function finishTool(row, result, isError) {
  row.classList.remove("running");
  row.classList.toggle("error", !!isError);
  row.append(el("pre", "result", result || "(no output)"));
}

function brief(text) {
  const one = (text || "").replace(/\s+/g, " ");
  return one.length > 80 ? `${one.slice(0, 79)}…` : one;
}

function pretty(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text || ""; }
}

function runOf(id) {
  let run = state.runs.get(id);
  if (!run) {
    run = { msg: null, text: "", tools: new Map() };
    state.runs.set(id, run);
  }
  return run;
}

// A streamed reply is re-rendered at most once per frame, and only the message that grew: a long reply
// costs one parse per frame rather than one per token.
function scheduleRender(run) {
  state.pendingRender.add(run);
  if (state.pendingRender.size > 1) return;
  requestAnimationFrame(() => {
    for (const r of state.pendingRender) if (r.msg) markdown(r.msg, r.text);
    state.pendingRender.clear();
    scroll($("log").dataset.follow !== "no");
  });
}

const handlers = {
  agent(ev) {
    if (ev.sessionKey !== state.session) {
      if (ev.stream === "lifecycle") refreshSessionsSoon();
      return;
    }
    const run = runOf(ev.runId);
    const data = ev.data || {};
    if (ev.stream === "assistant" && data.delta) {
      if (!run.msg) {
        run.msg = append(el("div", "msg assistant"));
        run.text = "";
      }
      run.text += data.delta;
      scheduleRender(run);
    } else if (ev.stream === "tool") {
      if (data.phase === "start") {
        run.msg = null; // text after a tool call is a new message below its row
        run.tools.set(data.toolCallId, append(toolRow(data.name, data.args)));
      } else if (data.phase === "result") {
        const row = run.tools.get(data.toolCallId) || append(toolRow(data.name, ""));
        finishTool(row, typeof data.result === "string" ? data.result : JSON.stringify(data.result), data.isError);
      }
    } else if (ev.stream === "lifecycle") {
      lifecycle(ev.runId, run, data);
    }
  },
  "exec.approval.requested"(ev) {
    const req = ev.request || {};
    if (req.sessionKey && req.sessionKey !== state.session) refreshSessionsSoon();
    const card = el("div", "approval");
    card.dataset.id = ev.id;
    card.append(el("strong", "", `Run this command${req.sessionKey ? ` (${shortKey(req.sessionKey)})` : ""}?`));
    card.append(el("pre", "", req.command || ""));
    if (req.reason) card.append(el("div", "reason", req.reason));
    const actions = el("div", "actions");
    for (const [label, decision, cls] of [["Allow once", "allow-once", ""], ["Always allow", "allow-always", ""],
      ["Deny", "deny", "deny"]]) {
      const button = el("button", cls, label);
      button.type = "button";
      button.dataset.decision = decision;
      button.addEventListener("click", async () => {
        actions.querySelectorAll("button").forEach((b) => { b.disabled = true; });
        try {
          await state.gw.request("exec.approval.resolve", { id: ev.id, decision });
          card.remove();
        } catch (err) {
          card.append(el("div", "error", err.message));
        }
      });
      actions.append(button);
    }
    card.append(actions);
    $("approvals").append(card);
  },
  "exec.approval.resolved"(ev) {
    document.querySelector(`.approval[data-id="${CSS.escape(ev.id)}"]`)?.remove();
  },
  "sessions.changed"() {
    refreshSessionsSoon();
  },
};

function lifecycle(runId, run, data) {
  if (data.phase === "accepted" || data.phase === "start") {
    state.running.add(runId);
  } else if (data.phase === "end" || data.phase === "error" || data.phase === "aborted") {
    state.running.delete(runId);
    if (data.phase === "end" && !run.text && data.text) {
      run.msg = append(el("div", "msg assistant"));
      run.text = data.text;
      markdown(run.msg, run.text);
    }
    if (data.phase === "error") append(el("div", "msg failed", data.message || "the run failed"));
    if (data.phase === "aborted") append(el("div", "msg note", "stopped"));
    run.msg?.classList.add("done");
    for (const row of run.tools.values()) row.classList.remove("running");
    refreshSessionsSoon();
  }
  updateAbort();
}

function updateAbort() {
  const busy = state.running.size > 0;
  $("abort").hidden = !busy;
  document.body.dataset.busy = busy ? "true" : "false";
}

let refreshTimer = null;
function refreshSessionsSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => loadSessions().catch(() => {}), 300);
}

async function send(text) {
  const session = state.session;
  append(el("div", "msg user", text));
  scroll(true);
  let res;
  try {
    res = await state.gw.request("chat.send", { sessionKey: session, message: text, idempotencyKey: crypto.randomUUID() });
  } catch (err) {
    append(el("div", "msg failed", err.message));
    return;
  }
  if (res.status === "started" || session !== state.session) return;
  // No run: a slash command's answer (or why the message was not taken).
  if (/^\/(new|reset)\b/.test(text.trim()) && res.status === "ok") {
    await openSession(session);
    loadSessions();
  }
  append(el("div", res.status === "ok" ? "msg note" : "msg failed", res.reply || res.status));
}

// Connect with `token`; a device waiting for `claw devices approve` (a browser on another host) tries again
// every few seconds, so the page comes in by itself once its device is approved.
async function signIn(token, remember) {
  clearTimeout(state.pairingTimer);
  try {
    await connect(token);
  } catch (err) {
    showLogin(err.message);
    if (/pairing required/i.test(err.message)) {
      $("login-error").textContent += " — this page connects by itself once it is approved";
      state.pairingTimer = setTimeout(() => signIn(token, remember), PAIRING_RETRY_MS);
    }
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  if (remember) localStorage.setItem(TOKEN_KEY, token);
  $("token").value = "";
}

// --- wiring ----------------------------------------------------------------------------------------

function wire() {
  $("login").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const token = $("token").value.trim();
    if (token) signIn(token, $("remember").checked);
  });
  $("composer").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("input").value.trim();
    if (!text || !state.gw) return;
    $("input").value = "";
    autosize();
    send(text);
  });
  $("input").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("input").addEventListener("input", autosize);
  $("abort").addEventListener("click", () => {
    state.gw.request("chat.abort", { sessionKey: state.session }).catch((err) => append(el("div", "msg failed", err.message)));
  });
  $("new-session").addEventListener("click", () => {
    const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 12);
    const key = `agent:${state.agent}:web:${stamp}-${Math.random().toString(16).slice(2, 6)}`;
    $("sidebar").classList.remove("open");
    openSession(key).then(loadSessions);
  });
  $("menu").addEventListener("click", () => $("sidebar").classList.toggle("open"));
  $("log").addEventListener("scroll", () => {
    const log = $("log");
    log.dataset.follow = log.scrollHeight - log.scrollTop - log.clientHeight < 60 ? "yes" : "no";
  });
}

function autosize() {
  const input = $("input");
  input.style.height = "auto";
  input.style.height = `${Math.min(input.scrollHeight, 192)}px`;
}

$("boot").remove();
wire();
const token = takeToken();
if (token) signIn(token, false);
else showLogin();
