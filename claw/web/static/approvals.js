// An exec approval question as a card: the command, the policy's reason, and the three answers. `answer`
// sends the decision (`allow-once`, `allow-always` or `deny`); the card goes when the gateway says the
// question is closed (`exec.approval.resolved`), whoever answered it.

import { el } from "./dom.js";

const DECISIONS = [["Allow once", "allow-once", ""], ["Always allow", "allow-always", ""], ["Deny", "deny", "deny"]];

export function approvalCard(ev, where, answer) {
  const req = ev.request || {};
  const card = el("div", "approval");
  card.dataset.id = ev.id;
  card.append(el("strong", "", `Run this command${where ? ` (${where})` : ""}?`));
  card.append(el("pre", "", req.command || ""));
  if (req.reason) card.append(el("div", "reason", req.reason));
  const actions = el("div", "actions");
  for (const [label, decision, cls] of DECISIONS) {
    const button = el("button", cls, label);
    button.type = "button";
    button.dataset.decision = decision;
    button.addEventListener("click", async () => {
      actions.querySelectorAll("button").forEach((b) => { b.disabled = true; });
      try {
        await answer(decision);
        card.remove();
      } catch (err) {
        card.append(el("div", "error", err.message));
      }
    });
    actions.append(button);
  }
  card.append(actions);
  return card;
}

export function dropApproval(id) {
  document.querySelector(`.approval[data-id="${CSS.escape(id)}"]`)?.remove();
}
