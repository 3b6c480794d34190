// The party planner (examples/chat_app) with the AI SDK's real chat client (AbstractChat +
// DefaultChatTransport, what useChat runs): 1. a message; the reply runs a server action and
// asks the page to run pick_color, which the page answers with addToolOutput; 2. sent on: the
// reply fills in a card and asks to approve an order, which the page approves with
// addToolApprovalResponse; 3. sent on: the order runs; 4. a last message; 5. regenerate.
// Usage: node party_flow.mjs URL [deny]   (prints what the page saw, and each step's messages;
// with "deny" the page denies the order instead)
import { DefaultChatTransport } from "ai";
import { NodeChat } from "./node_chat.mjs";

const [url, answer] = process.argv.slice(2);
const toolCalls = [];
const errors = [];
const data = [];
const steps = [];
const chat = new NodeChat({
  id: "party",
  transport: new DefaultChatTransport({ api: url }),
  onToolCall: ({ toolCall }) => { toolCalls.push(toolCall.toolName); },
  onData: (part) => { data.push(structuredClone(part)); },
  onError: (error) => { errors.push(String(error.message || error)); },
});
const parts = () => chat.messages.flatMap((m) => m.parts);
const snap = () => steps.push(structuredClone(chat.messages));

await chat.sendMessage({ text: "Plan a party in Paris." });
snap();
const pick = parts().find((p) => p.type === "tool-pick_color" && p.state === "input-available");
await chat.addToolOutput({ tool: "pick_color", toolCallId: pick.toolCallId, output: { color: "red" } });
await chat.sendMessage();
snap();
const asked = parts().find((p) => p.state === "approval-requested");
if (answer === "deny") await chat.addToolApprovalResponse({ id: asked.approval.id, approved: false, reason: "too many" });
else await chat.addToolApprovalResponse({ id: asked.approval.id, approved: true });
await chat.sendMessage();
snap();
await chat.sendMessage({ text: "Thanks!" });
snap();
await chat.regenerate();
snap();
process.stdout.write(JSON.stringify({ toolCalls, errors, data, steps, status: chat.status }));
