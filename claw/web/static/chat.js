// claw's web chat: one page over the gateway's WebSocket (./gateway.js). The token comes from the form or
// from a `#token=` fragment (browsers never send fragments to a server; it is removed from the address at
// once) and is kept in sessionStorage, or localStorage when "remember" is ticked.

import { approvalCard, dropApproval } from "./approvals.js";
import { Conversation } from "./conversation.js";
import { loadDevice } from "./device.js";
import { el } from "./dom.js";
import { Gateway } from "./gateway.js";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "claw.token";
const SESSION_KEY = "claw.session";
const RECONNECT_MS = 2000;
const PAIRING_RETRY_MS = 3000;

const state = { gw: null, token: null, device: null, agent: "main", session: null, pairingTimer: null };
const chat = new Conversation($("log"), (busy) => {
  $("abort").hidden = !busy;
  document.body.dataset.busy = busy ? "true" : "false";
});

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
  $("title").textContent = shortKey(key);
  for (const li of $("sessions").children) li.classList.toggle("current", li.dataset.key === key);
  chat.clear();
  const history = await state.gw.request("chat.history", { sessionKey: key, limit: 200 });
  if (state.session !== key) return;
  chat.history(history.messages || []);
  await state.gw.request("sessions.messages.subscribe", { key });
  document.body.dataset.session = key;
}

const handlers = {
  agent(ev) {
    if (ev.sessionKey === state.session) chat.onAgent(ev);
    if (ev.stream === "lifecycle" && ["end", "error", "aborted"].includes(ev.data?.phase)) refreshSessionsSoon();
  },
  "exec.approval.requested"(ev) {
    const key = ev.request?.sessionKey;
    const answer = (decision) => state.gw.request("exec.approval.resolve", { id: ev.id, decision });
    $("approvals").append(approvalCard(ev, key ? shortKey(key) : "", answer));
  },
  "exec.approval.resolved"(ev) {
    dropApproval(ev.id);
  },
  "sessions.changed"() {
    refreshSessionsSoon();
  },
};

let refreshTimer = null;
function refreshSessionsSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => loadSessions().catch(() => {}), 300);
}

async function send(text) {
  const session = state.session;
  chat.user(text);
  let res;
  try {
    res = await state.gw.request("chat.send", { sessionKey: session, message: text, idempotencyKey: crypto.randomUUID() });
  } catch (err) {
    chat.note(err.message, true);
    return;
  }
  if (res.status === "started" || session !== state.session) return;
  // No run: a slash command's answer (or why the message was not taken).
  if (/^\/(new|reset)\b/.test(text.trim()) && res.status === "ok") {
    await openSession(session);
    loadSessions();
  }
  chat.note(res.reply || res.status, res.status !== "ok");
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
    state.gw.request("chat.abort", { sessionKey: state.session }).catch((err) => chat.note(err.message, true));
  });
  $("new-session").addEventListener("click", () => {
    const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 12);
    const key = `agent:${state.agent}:web:${stamp}-${Math.random().toString(16).slice(2, 6)}`;
    $("sidebar").classList.remove("open");
    openSession(key).then(loadSessions);
  });
  $("menu").addEventListener("click", () => $("sidebar").classList.toggle("open"));
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
