// Reads an "ag-ui" stream with AG-UI's own packages and prints what it saw.
// 1. raw: every SSE data frame checked with @ag-ui/core's EventSchemas;
// 2. agent: @ag-ui/client's HttpAgent.runAgent (its event verifier and message
//    reducer), recording every event (with the state before it), the run's ending, the
//    final messages, the final state and the roles of the messages the next run would send.
// Usage: node ag_ui_client.mjs URL JSON_LIST_OF_FORWARDED_PROPS   (prints a list of results)
import { HttpAgent } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";

const [url, propsText] = process.argv.slice(2);

async function raw(forwardedProps) {
  const input = {
    threadId: "thread-1", runId: "run-1", state: {}, messages: [], tools: [], context: [], forwardedProps,
  };
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(input),
  });
  const text = await response.text();
  const events = [];
  const invalid = [];
  for (const block of text.split("\n\n")) {
    const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
    if (!data) continue;
    const parsed = EventSchemas.safeParse(JSON.parse(data));
    if (parsed.success) events.push(parsed.data);
    else invalid.push({ data, error: String(parsed.error) });
  }
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), events, invalid };
}

async function agent(forwardedProps) {
  const a = new HttpAgent({ url, threadId: "thread-1" });
  const seen = [];
  const states = [];
  let runError = null;
  let runFinished = null;
  let failure = null;
  try {
    await a.runAgent({ runId: "run-1", forwardedProps }, {
      onEvent: ({ event, state }) => { seen.push(event.type); states.push(structuredClone(state)); },
      onRunErrorEvent: ({ event }) => { runError = { message: event.message, code: event.code ?? null }; },
      onRunFinishedEvent: ({ result, pendingToolCallIds }) => { runFinished = { result, pendingToolCallIds }; },
    });
  } catch (error) {
    failure = String(error.message || error);
  }
  // what the next run would send the agent (activity messages are the UI's, never sent)
  const nextRoles = a.prepareRunAgentInput({ runId: "run-2" }).messages.map((m) => m.role);
  return { seen, states, runError, runFinished, failure, messages: a.messages, state: a.state, nextRoles };
}

const out = [];
for (const props of JSON.parse(propsText)) out.push({ raw: await raw(props), agent: await agent(props) });
process.stdout.write(JSON.stringify(out));
