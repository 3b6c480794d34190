// The "ai-sdk" format, read by the Vercel AI SDK's own chat client: AbstractChat and
// DefaultChatTransport, the code useChat runs, built on demand by unspool
// (`unspool demo --web --build-ai-sdk`) and served at /vendor/ai-sdk-chat.js.
// The chat keeps the assistant message as parts; each snapshot is drawn into the same
// ReplyView as the EventSource path, and onToolCall runs the page's action, which the
// AI SDK calls only for a complete tool input (an invalid one arrives as output-error).
import { AbstractChat, DefaultChatTransport } from "/vendor/ai-sdk-chat.js";

const ENDINGS = { stop: "complete", length: "truncated", error: "error" };

class PageState {
  constructor(onChange) {
    this.status = "ready";
    this.error = undefined;
    this.messages = [];
    this.onChange = onChange;
  }
  pushMessage(message) { this.messages = this.messages.concat(message); this.onChange(message); }
  popMessage() { this.messages = this.messages.slice(0, -1); }
  replaceMessage(index, message) {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
    this.onChange(message);
  }
  snapshot(thing) { return structuredClone(thing); }
}

class PageChat extends AbstractChat {
  constructor({ onChange, ...init }) { super({ ...init, state: new PageState(onChange) }); }
}

// Draws message snapshots into a ReplyView: the new end of each text part, each tool part.
class Drawer {
  constructor(view) { this.view = view; this.drawn = new Map(); }

  draw(message) {
    if (message.role !== "assistant") return;
    message.parts.forEach((part, index) => {
      if (part.type === "text" || part.type === "reasoning") {
        const done = this.drawn.get(index) || 0;
        if (part.text.length > done) this.view.append(part.type, part.text.slice(done));
        this.drawn.set(index, part.text.length);
      } else if (part.type.startsWith("tool-")) {
        this.tool(part, part.type.slice(5));
      }
    });
  }

  tool(part, name) {
    const panel = this.view.panel({ id: part.toolCallId, name });
    if (part.state === "input-streaming") {
      panel.args.textContent = JSON.stringify(part.input ?? {});
    } else if (part.state === "output-error" && panel.dataset.state === "streaming") {
      const meta = (part.toolMetadata && part.toolMetadata.unspool) || {};
      this.view.invalid({
        id: part.toolCallId,
        name,
        reason: meta.reason || "error",
        errors: meta.errors || [{ message: part.errorText }],
        raw: typeof part.rawInput === "string" ? part.rawInput : null,
      });
    }
  }
}

export async function playWithAiSdk(name, view) {
  const drawer = new Drawer(view);
  let chat = null;
  let ending = null;
  chat = new PageChat({
    transport: new DefaultChatTransport({ api: "/api/chat", body: { reply: name } }),
    onChange: (message) => drawer.draw(message),
    onToolCall: ({ toolCall }) => {
      const outcome = view.complete({
        id: toolCall.toolCallId, name: toolCall.toolName, args: toolCall.input,
      });
      // not awaited: the chat is still inside this tool call's job
      void chat.addToolOutput({
        tool: toolCall.toolName,
        toolCallId: toolCall.toolCallId,
        ...(outcome.error === undefined
          ? { output: outcome.output }
          : { state: "output-error", errorText: outcome.error }),
      });
    },
    onData: (part) => {
      if (part.type === "data-unspool-diagnostic") view.handle(part.data);
    },
    onFinish: ({ finishReason, isError, isAbort }) => {
      ending = isError ? "error" : isAbort ? "aborted" : ENDINGS[finishReason] || finishReason;
    },
  });
  await chat.sendMessage({ text: `Play the ${name} reply.` });
  const counts = [...view.actions.values()].reduce(
    (n, panel) => ({ ...n, [panel.dataset.state]: (n[panel.dataset.state] || 0) + 1 }), {});
  view.handle({
    type: "stream_done",
    reason: ending || "aborted",
    actions_complete: (counts.ran || 0) + (counts.failed || 0),
    actions_invalid: counts.invalid || 0,
  });
}
