// The gateway's WebSocket protocol 4, as the page speaks it: challenge, `connect` (the token, and this
// browser's device proof where WebCrypto exists), then requests (`req` → `res`) and events.

import { proveDevice } from "./device.js";

export const CLIENT = { id: "claw-web", version: "1", platform: "web", mode: "webchat", family: "browser" };
export const SCOPES = ["operator.read", "operator.write", "operator.approvals"];

export class Gateway extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.ws = null;
    this.pending = new Map();
    this.ids = 0;
    this.hello = null;
  }

  // Resolves with the hello once connected; rejects with the gateway's reason when refused.
  connect(token, device) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      this.ws = ws;
      let settled = false;
      const fail = (message) => {
        if (!settled) { settled = true; reject(new Error(message)); }
      };
      ws.onmessage = async (msg) => {
        const frame = JSON.parse(msg.data);
        if (frame.type === "event" && frame.event === "connect.challenge") {
          const params = await this.connectParams(token, device, frame.payload.nonce);
          ws.send(JSON.stringify({ type: "req", id: "connect", method: "connect", params }));
        } else if (frame.type === "res" && frame.id === "connect") {
          if (!frame.ok) { fail(frame.error.message); return; }
          this.hello = frame.payload;
          settled = true;
          resolve(frame.payload);
        } else {
          this.receive(frame);
        }
      };
      ws.onclose = (ev) => {
        fail(ev.reason || "the gateway closed the connection");
        for (const { reject: no } of this.pending.values()) no(new Error("disconnected"));
        this.pending.clear();
        this.dispatchEvent(new CustomEvent("close", { detail: ev.reason }));
      };
      ws.onerror = () => fail("cannot reach the gateway");
    });
  }

  async connectParams(token, device, nonce) {
    const params = {
      minProtocol: 4, maxProtocol: 4, role: "operator", scopes: SCOPES, caps: ["approvals"],
      client: { id: CLIENT.id, version: CLIENT.version, platform: CLIENT.platform, mode: CLIENT.mode,
        deviceFamily: CLIENT.family, displayName: "claw web chat" },
      auth: { token },
    };
    if (device) {
      params.device = await proveDevice(device, { clientId: CLIENT.id, mode: CLIENT.mode, role: "operator",
        scopes: SCOPES, token, nonce, platform: CLIENT.platform, family: CLIENT.family });
    }
    return params;
  }

  request(method, params = {}) {
    const id = `r${++this.ids}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ type: "req", id, method, params }));
    });
  }

  receive(frame) {
    if (frame.type === "res") {
      const waiter = this.pending.get(frame.id);
      if (!waiter) return;
      this.pending.delete(frame.id);
      if (frame.ok) waiter.resolve(frame.payload);
      else waiter.reject(new Error(frame.error?.message || "request failed"));
    } else if (frame.type === "event") {
      this.dispatchEvent(new CustomEvent(frame.event, { detail: frame.payload }));
    }
  }

  close() {
    if (this.ws) this.ws.close(1000, "bye");
  }
}
