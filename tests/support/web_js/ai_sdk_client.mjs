// Reads an "ai-sdk" stream with the AI SDK's own client code and prints what it saw.
// 1. raw: every SSE data frame through parseJsonEventStream with the package's
//    uiMessageChunkSchema (what DefaultChatTransport does), noting [DONE];
// 2. chat: a real AbstractChat (what useChat wraps) with DefaultChatTransport, recording
//    onToolCall, onError, onFinish and the final message, and the model messages the
//    package's convertToModelMessages makes of the chat (what the next request sends on),
//    and every data part onData was given.
// Usage: node ai_sdk_client.mjs URL JSON_LIST_OF_BODIES   (prints a list of results)
import {
  DefaultChatTransport, convertToModelMessages, parseJsonEventStream, uiMessageChunkSchema,
} from "ai";
import { NodeChat } from "./node_chat.mjs";

const [url, bodiesText] = process.argv.slice(2);

async function raw(body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: "raw", messages: [], trigger: "submit-message", ...body }),
  });
  const text = await response.text();
  const dataLines = text.split("\n").filter((line) => line.startsWith("data: "));
  const chunks = [];
  const invalid = [];
  const stream = new Response(text).body;
  for await (const result of parseJsonEventStream({ stream, schema: uiMessageChunkSchema })) {
    if (result.success) chunks.push(result.value);
    else invalid.push(String(result.error));
  }
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    chunks,
    invalid,
    lastData: dataLines.at(-1),
  };
}

async function chat(body) {
  const toolCalls = [];
  const errors = [];
  const data = [];
  let finish = null;
  const c = new NodeChat({
    transport: new DefaultChatTransport({ api: url, body }),
    onToolCall: ({ toolCall }) => { toolCalls.push(toolCall); },
    onError: (error) => { errors.push(String(error.message || error)); },
    onData: (part) => { data.push(structuredClone(part)); },  // the chat keeps and updates the first
    onFinish: ({ isError, isAbort, finishReason }) => { finish = { isError, isAbort, finishReason: finishReason ?? null }; },
  });
  await c.sendMessage({ text: "play" });
  const assistant = c.messages.filter((m) => m.role === "assistant").at(-1);
  let modelMessages;
  try {
    modelMessages = await convertToModelMessages(c.messages);
  } catch (error) {
    modelMessages = { error: String(error.message || error) };
  }
  return { status: c.status, toolCalls, errors, data, finish, message: assistant ?? null, modelMessages };
}

const out = [];
for (const body of JSON.parse(bodiesText)) out.push({ raw: await raw(body), chat: await chat(body) });
process.stdout.write(JSON.stringify(out));
