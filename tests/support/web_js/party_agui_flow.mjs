// The party planner (examples/chat_app) with AG-UI's real client (@ag-ui/client's HttpAgent):
// run 1: a message and the page's own tool (pick_color), left pending for the page, which
// answers it with a tool message; run 2: the reply shows a card and asks to approve an order
// (an interrupt); run 3 resumes it, approved; run 4: a last message.
// Usage: node party_agui_flow.mjs URL   (prints the agent's messages, interrupts and events)
import { HttpAgent } from "@ag-ui/client";

const [url] = process.argv.slice(2);
const agent = new HttpAgent({ url, threadId: "party-thread" });
const tools = [{
  name: "pick_color", description: "Ask the user to pick a balloon color.",
  parameters: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
}];
const runs = [];
const custom = [];
const subscriber = {
  onRunFinishedEvent: (params) => {
    runs.push({ outcome: params.outcome, pending: params.pendingToolCallIds ?? null, interrupts: params.interrupts ?? null });
  },
  onCustomEvent: ({ event }) => { custom.push({ name: event.name, value: event.value }); },
};

agent.addMessage({ id: "u1", role: "user", content: "Plan a party in Paris." });
await agent.runAgent({ runId: "run-1", tools }, subscriber);
const pending = runs.at(-1).pending;
agent.addMessage({ id: "t1", role: "tool", toolCallId: pending[0], content: JSON.stringify({ color: "red" }) });
await agent.runAgent({ runId: "run-2", tools }, subscriber);
const interrupt = agent.pendingInterrupts[0];
await agent.runAgent(
  { runId: "run-3", tools, resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] },
  subscriber,
);
agent.addMessage({ id: "u2", role: "user", content: "Thanks!" });
await agent.runAgent({ runId: "run-4", tools }, subscriber);
process.stdout.write(JSON.stringify({ messages: agent.messages, runs, custom, interrupt }));
