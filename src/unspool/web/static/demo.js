// The unspool demo page: reads the "unspool" SSE format with a plain EventSource.
// Text streams in; each action's panel fills in from its args deltas; an action runs in
// the page only on action_complete; invalid and truncated actions are shown, never run.
// Playing a reply again starts its stage and its transcript afresh.
"use strict";

const EVENT_TYPES = [
  "text_delta", "reasoning_delta", "refusal_delta", "citation", "action_started",
  "action_args_delta", "action_complete", "action_invalid", "action_result",
  "action_failed", "diagnostic", "stream_error", "stream_done", "resume_failed",
];

const PRODUCTS = { "kit-42": "Microscope kit: a microscope and 20 prepared slides." };

// What each action does in the page: the application's own code, run with the final args.
const ACTIONS = {
  spotlight({ elementId }) {
    const slide = document.querySelector(".slide");
    slide.querySelectorAll(".spotlight").forEach((el) => el.classList.remove("spotlight"));
    const el = slide.querySelector(`[data-element-id="${CSS.escape(elementId)}"]`);
    if (!el) throw new Error(`no element ${elementId} on the slide`);
    el.classList.add("spotlight");
    slide.classList.add("has-spotlight");
    return `spotlighted ${elementId}`;
  },
  wb_draw_text({ content, x = 10, y = 10 }) {
    const text = document.createElement("div");
    text.className = "wb-text";
    text.textContent = content;
    text.style.left = `${x}px`;
    text.style.top = `${y}px`;
    document.getElementById("whiteboard").append(text);
    return "written on the whiteboard";
  },
  wb_draw_table({ data }) {
    const table = document.createElement("table");
    for (const row of data) {
      const tr = table.insertRow();
      for (const cell of row) tr.insertCell().textContent = cell;
    }
    table.className = "wb-text";
    document.getElementById("whiteboard").append(table);
    return "table drawn";
  },
  show_product_modal({ productId, viewMode = "compact" }) {
    document.getElementById("modal-title").textContent = productId;
    document.getElementById("modal-body").textContent =
      `${PRODUCTS[productId] || "Unknown product."} (${viewMode} view)`;
    document.getElementById("product-modal").hidden = false;
    return `opened ${productId}`;
  },
  add_to_cart({ productId, quantity }) {
    const count = document.getElementById("cart-count");
    count.textContent = String(Number(count.textContent) + quantity);
    return `${quantity} x ${productId} in the cart`;
  },
  navigate_route({ path }) {
    document.getElementById("route").textContent = path;
    return `went to ${path}`;
  },
};

// What the page says for a diagnostic. The lenient reader reports the end of a cut-off
// reply as a "truncated" repair (it closed what was open to read what arrived): that is
// a note about the cut, not a repaired action, which stays "not run: truncated".
function noteText(event) {
  if (event.kind === "repair" && /^truncated\b/.test(event.message)) {
    return "note (cut off): the reply ended before it was complete; " +
      "an action it cut off is not run";
  }
  return `note (${event.kind}): ${event.message}`;
}

// Each reply's stage as the page first drew it, put back before the reply plays again.
const STAGES = {};
for (const stage of document.querySelectorAll(".stage .panel")) {
  STAGES[stage.id] = stage.innerHTML;
}

function resetStage(name) {
  const stage = document.getElementById(`stage-${name}`);
  if (stage) stage.innerHTML = STAGES[stage.id];
  const old = document.querySelector(`#transcript article[data-reply="${CSS.escape(name)}"]`);
  if (old) old.remove();
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// One reply's transcript block: text runs, reasoning runs and action panels, in order.
class ReplyView {
  constructor(name, title) {
    this.root = el("article", "reply");
    this.root.dataset.reply = name;
    this.root.append(el("h3", "", title.charAt(0).toUpperCase() + title.slice(1)));
    this.body = el("div", "text");
    this.root.append(this.body);
    this.run = null;
    this.actions = new Map();
    document.getElementById("transcript").prepend(this.root);
  }

  append(kind, text) {
    if (!this.run || this.run.dataset.kind !== kind) {
      this.run = el("span", kind === "text" ? "" : kind);
      this.run.dataset.kind = kind;
      this.body.append(this.run);
    }
    this.run.textContent += text;
  }

  panel(event) {
    let panel = this.actions.get(event.id);
    if (!panel) {
      panel = el("div", "action");
      panel.dataset.actionId = event.id;
      panel.dataset.state = "streaming";
      const head = el("div", "head");
      panel.name = el("strong", "", event.name || "(no name)");
      panel.badge = el("span", "badge", "arguments streaming");
      head.append(panel.name, panel.badge);
      panel.args = el("pre", "args", "");
      panel.why = el("div", "why");
      panel.append(head, panel.args, panel.why);
      this.body.append(panel);
      this.run = null;
      this.actions.set(event.id, panel);
    }
    if (event.name) {
      panel.name.textContent = event.name;
      panel.dataset.name = event.name;
    }
    return panel;
  }

  handle(event) {
    switch (event.type) {
      case "text_delta": return this.append("text", event.text);
      case "reasoning_delta": return this.append("reasoning", event.text);
      case "refusal_delta": return this.append("refusal", event.text);
      case "action_started": return void this.panel(event);
      case "action_args_delta":
        this.panel(event).args.textContent = JSON.stringify(event.partial);
        return;
      case "action_complete": return this.complete(event);
      case "action_invalid": return this.invalid(event);
      case "diagnostic":
        this.body.append(el("div", "diagnostic", noteText(event)));
        this.run = null;
        return;
      case "stream_error":
        this.body.append(el("div", "why", `the stream failed: ${event.message}`));
        return;
      case "stream_done":
        this.root.append(el("div", "done", `stream done: ${event.reason}, ${event.actions_complete} ` +
          `complete and ${event.actions_invalid} invalid actions`));
        this.root.dataset.done = event.reason;
        return;
      default: return;
    }
  }

  // Runs the action in the page; returns { output } or { error }.
  complete(event) {
    const panel = this.panel(event);
    panel.args.textContent = JSON.stringify(event.args);
    const action = ACTIONS[event.name];
    try {
      if (!action) throw new Error("this page has no handler for it");
      const output = action(event.args);
      panel.badge.textContent = output;
      panel.dataset.state = "ran";
      return { output };
    } catch (err) {
      panel.badge.textContent = "failed";
      panel.why.textContent = String(err.message || err);
      panel.dataset.state = "failed";
      return { error: panel.why.textContent };
    }
  }

  invalid(event) {
    const panel = this.panel(event);
    panel.dataset.state = "invalid";
    panel.dataset.reason = event.reason;
    panel.badge.textContent = `not run: ${event.reason}`;
    const details = event.errors.map((e) => e.message).filter(Boolean).join("; ");
    panel.why.textContent = details || event.reason;
    if (event.raw) panel.args.textContent = event.raw;
  }
}

function setStatus(text) {
  document.getElementById("status").textContent = text;
}

// The "unspool" format, read with a plain EventSource.
async function playWithEventSource(name, view) {
  const response = await fetch("/api/runs", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ reply: name }),
  });
  const { events } = await response.json();
  await new Promise((resolve) => {
    const source = new EventSource(events);  // reconnects by itself, with Last-Event-ID
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        const event = JSON.parse(message.data);
        view.handle(event);
        if (type === "stream_done" || type === "resume_failed") {
          source.close();
          resolve();
        }
      });
    }
  });
}

function chosenClient() {
  return document.querySelector('input[name="client"]:checked').value;
}

async function play(name, title) {
  const client = chosenClient();
  resetStage(name);
  const view = new ReplyView(name, title);
  view.root.dataset.client = client;
  setStatus(`Playing ${title}...`);
  if (client === "ai-sdk") {
    const { playWithAiSdk } = await import("/static/ai-sdk.js");
    await playWithAiSdk(name, view);
  } else {
    await playWithEventSource(name, view);
  }
  setStatus(`Played ${title} (${client}): ${view.root.dataset.done || "the stream was lost"}.`);
}

const READINGS = {
  lenient: "The replies are read leniently, as unspool demo reads them: what the model got " +
    "wrong is repaired and shown as a note (--strict reads them as strict JSON).",
  strict: "The replies are read as strict JSON, as unspool demo --strict reads them: a " +
    "malformed action is invalid and never runs.",
};

// The AI SDK client is built on demand (`unspool demo --web --build-ai-sdk`): until it is,
// its switch is off and the command that builds it is folded away under the switch; the
// "unspool" format needs nothing.
async function setUp() {
  const fieldset = document.getElementById("client");
  const aiSdk = fieldset.querySelector('input[value="ai-sdk"]');
  let info = { aiSdk: { built: false, help: "The server did not say." }, reading: null };
  try {
    info = await (await fetch("/api/replies")).json();
  } catch (error) {
    info.aiSdk.help += ` (${error})`;
  }
  const state = info.aiSdk;
  aiSdk.disabled = !state.built;
  if (state.built && location.pathname === "/ai-sdk") aiSdk.checked = true;
  const help = document.getElementById("ai-sdk-help");
  document.getElementById("ai-sdk-help-text").textContent = state.help;
  help.hidden = state.built;
  fieldset.dataset.aiSdk = state.built ? "built" : "missing";
  const reading = document.getElementById("reading");
  reading.textContent = READINGS[info.reading] || "";
  document.body.dataset.reading = info.reading || "unknown";
}
setUp();

document.querySelector(".stage").addEventListener("click", (event) => {
  if (event.target.id === "modal-close") document.getElementById("product-modal").hidden = true;
});

for (const button of document.querySelectorAll("nav button")) {
  button.addEventListener("click", async () => {
    const buttons = document.querySelectorAll("nav button");
    buttons.forEach((b) => { b.disabled = true; });
    document.body.dataset.state = "playing";
    try {
      await play(button.dataset.reply, button.textContent.replace(/^Play /, ""));
    } finally {
      buttons.forEach((b) => { b.disabled = false; });
      document.body.dataset.state = "idle";
    }
  });
}
