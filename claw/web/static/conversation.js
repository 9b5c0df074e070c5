// The open session's conversation: its history, then the runs' `agent` events as they come — the user's
// messages, the replies streamed as Markdown, the tool calls as rows that open on a click.

import { el } from "./dom.js";
import { renderMarkdown } from "./markdown.js";

export class Conversation {
  // `log` is the element the conversation is drawn in; `onBusy(busy)` hears when a run starts or ends.
  constructor(log, onBusy) {
    this.log = log;
    this.onBusy = onBusy;
    this.runs = new Map(); // runId → {msg, text, tools: Map toolCallId → <details>}
    this.running = new Set(); // ids of the runs not yet ended
    this.pendingRender = new Set();
    this.follow = true;
    log.addEventListener("scroll", () => {
      this.follow = log.scrollHeight - log.scrollTop - log.clientHeight < 60;
    });
  }

  clear() {
    this.runs.clear();
    this.running.clear();
    this.log.replaceChildren();
    this.onBusy(false);
  }

  history(messages) {
    const tools = new Map();
    for (const m of messages) {
      const text = textOf(m.content);
      if (m.role === "user") this.append(el("div", "msg user", text));
      else if (m.role === "assistant") {
        if (text) this.append(markdown(el("div", "msg assistant"), text));
        for (const call of m.toolCalls || []) tools.set(call.id, this.append(toolRow(call.name, call.arguments)));
      } else if (m.role === "tool") {
        finishTool(tools.get(m.toolCallId) || this.append(toolRow(m.name, "")), text, m.isError);
      }
    }
    this.scroll();
  }

  user(text) {
    this.append(el("div", "msg user", text));
    this.scroll();
  }

  note(text, failed = false) {
    this.append(el("div", failed ? "msg failed" : "msg note", text));
  }

  // One `agent` event of a run in this session.
  onAgent(ev) {
    const run = this.runOf(ev.runId);
    const data = ev.data || {};
    if (ev.stream === "assistant" && data.delta) {
      if (!run.msg) {
        run.msg = this.append(el("div", "msg assistant"));
        run.text = "";
      }
      run.text += data.delta;
      this.scheduleRender(run);
    } else if (ev.stream === "tool" && data.phase === "start") {
      run.msg = null; // text after a tool call is a new message below its row
      run.tools.set(data.toolCallId, this.append(toolRow(data.name, data.args)));
    } else if (ev.stream === "tool" && data.phase === "result") {
      const row = run.tools.get(data.toolCallId) || this.append(toolRow(data.name, ""));
      finishTool(row, typeof data.result === "string" ? data.result : JSON.stringify(data.result), data.isError);
    } else if (ev.stream === "lifecycle") {
      this.lifecycle(ev.runId, run, data);
    }
  }

  lifecycle(runId, run, data) {
    if (data.phase === "accepted" || data.phase === "start") {
      this.running.add(runId);
    } else if (data.phase === "end" || data.phase === "error" || data.phase === "aborted") {
      this.running.delete(runId);
      if (data.phase === "end" && !run.text && data.text) {
        run.msg = this.append(el("div", "msg assistant"));
        run.text = data.text;
        markdown(run.msg, run.text);
      }
      if (data.phase === "error") this.note(data.message || "the run failed", true);
      if (data.phase === "aborted") this.note("stopped");
      run.msg?.classList.add("done");
      for (const row of run.tools.values()) row.classList.remove("running");
    }
    this.onBusy(this.running.size > 0);
  }

  runOf(id) {
    let run = this.runs.get(id);
    if (!run) {
      run = { msg: null, text: "", tools: new Map() };
      this.runs.set(id, run);
    }
    return run;
  }

  // A streamed reply is re-rendered at most once per frame, and only the message that grew: a long reply
  // costs one parse per frame rather than one per token.
  scheduleRender(run) {
    this.pendingRender.add(run);
    if (this.pendingRender.size > 1) return;
    requestAnimationFrame(() => {
      for (const r of this.pendingRender) if (r.msg) markdown(r.msg, r.text);
      this.pendingRender.clear();
      if (this.follow) this.scroll();
    });
  }

  append(node) {
    const atEnd = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
    this.log.append(node);
    if (atEnd) this.scroll();
    return node;
  }

  scroll() {
    this.log.scrollTop = this.log.scrollHeight;
  }
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p.text || "")).join("");
  return "";
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
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text || "";
  }
}
