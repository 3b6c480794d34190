// A conversation with AG-UI's real client (@ag-ui/client's HttpAgent), for the server to
// record the RunAgentInput it posts: run 1 sends a message with an image (and the page's own
// tool, "confirm"); the page answers the frontend tool call it got with a tool message;
// run 2 sends that on with a new user message.
// Usage: node ag_ui_flow.mjs URL PNG_BASE64   (prints the agent's messages and state)
import { HttpAgent } from "@ag-ui/client";

const [url, png] = process.argv.slice(2);
const agent = new HttpAgent({ url, threadId: "thread-flow", initialState: { cart: [] } });
const tools = [{ name: "confirm", description: "Ask the user to confirm.", parameters: { type: "object", properties: { q: { type: "string" } } } }];
const context = [{ description: "locale", value: "fr-FR" }];

agent.addMessage({
  id: "u1", role: "user",
  content: [
    { type: "text", text: "Weather in Paris? Here is a map." },
    { type: "image", source: { type: "data", value: png, mimeType: "image/png" } },
  ],
});
let pending = null;
await agent.runAgent(
  { runId: "run-1", tools, context, forwardedProps: { plan: "pro" } },
  { onRunFinishedEvent: ({ pendingToolCallIds }) => { pending = pendingToolCallIds; } },
);
const calls = agent.messages.flatMap((m) => m.toolCalls ?? []);
const confirm = calls.find((c) => c.function.name === "confirm");
agent.addMessage({ id: "t-confirm", role: "tool", toolCallId: confirm.id, content: JSON.stringify({ confirmed: true }) });
agent.addMessage({ id: "u2", role: "user", content: "Thanks!" });
await agent.runAgent({ runId: "run-2", tools, context });
process.stdout.write(JSON.stringify({ messages: agent.messages, state: agent.state, pending }));
