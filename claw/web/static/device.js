// This browser's device identity, as OpenClaw's clients keep one: an Ed25519 key pair whose private half
// never leaves the browser (a non-extractable WebCrypto key, kept in IndexedDB). The id is the SHA-256
// (hex) of the raw public key. The gateway pairs a new device at once over loopback; from another host,
// `claw devices approve ID` on the gateway's machine lets it in. WebCrypto exists only in a secure context
// (https, or http on localhost): elsewhere `loadDevice` answers null and the page says what to do.

const DB = "claw-web";
const STORE = "device";

export async function loadDevice() {
  if (!globalThis.isSecureContext || !crypto.subtle) return null;
  try {
    let pair = await get();
    if (!pair) {
      pair = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
      await put(pair);
    }
    const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
    const id = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", raw)));
    return { id, publicKey: b64url(raw), privateKey: pair.privateKey };
  } catch (err) {
    console.warn("no device identity:", err);
    return null;
  }
}

// The v3 proof of `connect`: the challenge's nonce and what the client asks for, signed.
export async function proveDevice(device, { clientId, mode, role, scopes, token, nonce, platform, family }) {
  const signedAt = Date.now();
  const norm = (v) => (v || "").trim().toLowerCase();
  const payload = ["v3", device.id, clientId, mode, role, scopes.join(","), String(signedAt), token || "", nonce,
    norm(platform), norm(family)].join("|");
  const sig = await crypto.subtle.sign({ name: "Ed25519" }, device.privateKey, new TextEncoder().encode(payload));
  return { id: device.id, publicKey: device.publicKey, signature: b64url(new Uint8Array(sig)), signedAt, nonce };
}

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function get() {
  const db = await open();
  return new Promise((resolve, reject) => {
    const req = db.transaction(STORE).objectStore(STORE).get("key");
    req.onsuccess = () => resolve(req.result || null);
    req.onerror = () => reject(req.error);
  });
}

async function put(pair) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, "readwrite");
    tx.objectStore(STORE).put(pair, "key");
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function b64url(bytes) {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
