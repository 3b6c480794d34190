// The party planner's page: the AI SDK's useChat (?client=ai-sdk, the default) or AG-UI's
// HttpAgent (?client=ag-ui) against examples/chat_app/app.py. The server runs get_weather and
// show_card, asks before place_order, and leaves pick_color to this page.
import { useChat } from "@ai-sdk/react";
import { HttpAgent } from "@ag-ui/client";
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
} from "ai";
import { useEffect, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";

const COLORS = ["red", "blue", "gold"];
const STORE = "party-messages";

function Card({ card }) {
  if (!card) return null;
  const value = card.value ?? {};
  return (
    <div className="card" data-complete={String(Boolean(card.complete))}>
      <strong className="title">{value.title ?? "…"}</strong>
      <ul>{(value.lines ?? []).map((line, i) => <li key={i}>{line}</li>)}</ul>
    </div>
  );
}

function ColorPicker({ onPick }) {
  return (
    <div className="picker">
      Pick a balloon color:{" "}
      {COLORS.map((c) => <button key={c} data-color={c} onClick={() => onPick(c)}>{c}</button>)}
    </div>
  );
}

function Approval({ what, onAnswer }) {
  return (
    <div className="approval">
      Approve {what}?{" "}
      <button id="approve" onClick={() => onAnswer(true)}>Approve</button>
      <button id="deny" onClick={() => onAnswer(false)}>Deny</button>
    </div>
  );
}

function Composer({ busy, onSend }) {
  const [text, setText] = useState("");
  return (
    <form id="composer" onSubmit={(e) => { e.preventDefault(); if (text.trim()) { onSend(text); setText(""); } }}>
      <input id="prompt" value={text} disabled={busy} onChange={(e) => setText(e.target.value)} />
      <button id="send" type="submit" disabled={busy}>Send</button>
    </form>
  );
}

// --------------------------------------------------------------------------- useChat

function AiSdkChat() {
  const saved = useMemo(() => JSON.parse(localStorage.getItem(STORE) ?? "[]"), []);
  const { messages, sendMessage, addToolOutput, addToolApprovalResponse, regenerate, status, error } = useChat({
    id: "party",
    messages: saved,
    transport: new DefaultChatTransport({ api: "/api/chat" }),
    sendAutomaticallyWhen: ({ messages }) =>
      lastAssistantMessageIsCompleteWithToolCalls({ messages }) ||
      lastAssistantMessageIsCompleteWithApprovalResponses({ messages }),
  });
  useEffect(() => {
    if (status === "ready") localStorage.setItem(STORE, JSON.stringify(messages));
  }, [status, messages]);
  const busy = status === "submitted" || status === "streaming";

  function part(p, i) {
    if (p.type === "text") return <p key={i} className="text">{p.text}</p>;
    if (p.type === "data-card") return <Card key={i} card={p.data} />;
    if (!p.type.startsWith("tool-")) return null;
    const name = p.type.slice(5);
    return (
      <div key={i} className="tool" data-tool={name} data-state={p.state}>
        {name} {p.state === "output-available" ? JSON.stringify(p.output) : p.state}
        {name === "pick_color" && p.state === "input-available" && (
          <ColorPicker onPick={(color) => addToolOutput({ tool: name, toolCallId: p.toolCallId, output: { color } })} />
        )}
        {p.state === "approval-requested" && (
          <Approval what={`${name} ${JSON.stringify(p.input)}`}
            onAnswer={(approved) => addToolApprovalResponse({ id: p.approval.id, approved })} />
        )}
      </div>
    );
  }

  return (
    <main data-client="ai-sdk" data-status={status} data-busy={String(busy)}>
      {messages.map((m) => (
        <div key={m.id} className={`msg ${m.role}`} data-role={m.role}>{m.parts.map(part)}</div>
      ))}
      {error && <p id="error">{String(error.message ?? error)}</p>}
      <Composer busy={busy} onSend={(text) => sendMessage({ text })} />
      <button id="retry" disabled={busy || messages.length === 0} onClick={() => regenerate()}>Retry</button>
      <button id="clear" onClick={() => { localStorage.removeItem(STORE); location.reload(); }}>New chat</button>
    </main>
  );
}

// --------------------------------------------------------------------------- AG-UI

const TOOLS = [{
  name: "pick_color",
  description: "Ask the user to pick a balloon color.",
  parameters: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
}];

function AgUiChat() {
  const agent = useMemo(() => new HttpAgent({ url: "/api/agui", threadId: "party-ag-ui" }), []);
  const [messages, setMessages] = useState([]);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState([]);
  const [interrupts, setInterrupts] = useState([]);
  const [cards, setCards] = useState({});
  const [runs, setRuns] = useState(0);

  async function run(params = {}) {
    setBusy(true);
    setPending([]);
    setInterrupts([]);
    await agent.runAgent({ runId: crypto.randomUUID(), tools: TOOLS, ...params }, {
      onMessagesChanged: ({ messages }) => setMessages([...messages]),
      onCustomEvent: ({ event }) => {
        if (event.name === "card") setCards((c) => ({ ...c, [event.metadata?.unspool?.id ?? "card"]: event.value }));
      },
      onRunFinishedEvent: ({ pendingToolCallIds, interrupts }) => {
        setPending(pendingToolCallIds ?? []);
        setInterrupts(interrupts ?? []);
      },
    });
    setMessages([...agent.messages]);
    setRuns((n) => n + 1);
    setBusy(false);
  }

  const calls = messages.flatMap((m) => m.toolCalls ?? []);
  const results = new Map(messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content]));
  const picks = calls.filter((c) => c.function.name === "pick_color" && pending.includes(c.id));

  return (
    <main data-client="ag-ui" data-busy={String(busy)} data-runs={runs}>
      {messages.filter((m) => m.role === "user" || m.role === "assistant").map((m) => (
        <div key={m.id} className={`msg ${m.role}`} data-role={m.role}>
          {m.content && <p className="text">{typeof m.content === "string" ? m.content : ""}</p>}
          {(m.toolCalls ?? []).map((c) => (
            <div key={c.id} className="tool" data-tool={c.function.name}
              data-state={results.has(c.id) ? "output-available" : "input-available"}>
              {c.function.name} {results.get(c.id) ?? ""}
            </div>
          ))}
        </div>
      ))}
      {Object.entries(cards).map(([id, card]) => <Card key={id} card={card} />)}
      {picks.map((c) => (
        <ColorPicker key={c.id} onPick={(color) => {
          agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: c.id, content: JSON.stringify({ color }) });
          run();
        }} />
      ))}
      {interrupts.map((it) => (
        <Approval key={it.id} what={it.message} onAnswer={(approved) => run({
          resume: [{ interruptId: it.id, status: "resolved", payload: { approved } }],
        })} />
      ))}
      <Composer busy={busy} onSend={(text) => {
        agent.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
        run();
      }} />
    </main>
  );
}

const client = new URLSearchParams(location.search).get("client") ?? "ai-sdk";
createRoot(document.getElementById("root")).render(client === "ag-ui" ? <AgUiChat /> : <AiSdkChat />);
