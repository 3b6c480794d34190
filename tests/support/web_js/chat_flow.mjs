// A whole conversation with the AI SDK's real chat client (AbstractChat + DefaultChatTransport,
// what useChat runs), for the server to record what useChat posts at each turn:
// 1. a message with an image file; the reply calls a client-side tool ("confirm"), which the
//    page answers with addToolOutput; 2. the chat is sent on; the reply asks an approval,
//    which the page denies with addToolApprovalResponse; 3. sent on again; 4. a last message.
// Usage: node chat_flow.mjs URL PNG_DATA_URL   (prints the final messages and the tool calls seen)
import { DefaultChatTransport } from "ai";
import { NodeChat } from "./node_chat.mjs";

const [url, pngUrl] = process.argv.slice(2);

const toolCalls = [];
const errors = [];
const chat = new NodeChat({
  id: "chat-flow",
  transport: new DefaultChatTransport({ api: url, body: { userId: "user-7" } }),
  onToolCall: ({ toolCall }) => { toolCalls.push(toolCall.toolName); },
  onError: (error) => { errors.push(String(error.message || error)); },
});

const parts = () => chat.messages.flatMap((m) => m.parts);

await chat.sendMessage({
  text: "Weather in Paris? Here is a map.",
  files: [{ type: "file", mediaType: "image/png", filename: "map.png", url: pngUrl }],
});
const confirm = parts().find((p) => p.type === "tool-confirm" && p.state === "input-available");
await chat.addToolOutput({ tool: "confirm", toolCallId: confirm.toolCallId, output: { confirmed: true } });
await chat.sendMessage();
const asked = parts().find((p) => p.state === "approval-requested");
await chat.addToolApprovalResponse({ id: asked.approval.id, approved: false, reason: "not today" });
await chat.sendMessage();
await chat.sendMessage({ text: "Thanks!" });
process.stdout.write(JSON.stringify({ toolCalls, errors, messages: chat.messages, status: chat.status }));
