// The npm packages' own validators, as the reference for unspool's request models.
// Reads {"uiMessages": [...], "runInputs": [...]} on stdin and prints, for each,
// {ok, data} or {ok: false, error}:
// * uiMessages: the AI SDK's safeValidateUIMessages (its uiMessagesSchema), and for a valid
//   list the model messages its convertToModelMessages makes of it;
// * runInputs: @ag-ui/core's RunAgentInputSchema.
import { convertToModelMessages, safeValidateUIMessages } from "ai";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const uiMessages = [];
for (const messages of input.uiMessages ?? []) {
  const result = await safeValidateUIMessages({ messages });
  if (!result.success) {
    uiMessages.push({ ok: false, error: String(result.error.message ?? result.error).slice(0, 2000) });
    continue;
  }
  let modelMessages;
  try {
    modelMessages = await convertToModelMessages(result.data);
  } catch (error) {
    modelMessages = { error: String(error.message ?? error) };
  }
  uiMessages.push({ ok: true, data: result.data, modelMessages });
}

const runInputs = [];
for (const body of input.runInputs ?? []) {
  const result = RunAgentInputSchema.safeParse(body);
  runInputs.push(result.success ? { ok: true, data: result.data } : { ok: false, error: String(result.error).slice(0, 2000) });
}
process.stdout.write(JSON.stringify({ uiMessages, runInputs }));
