// The AI SDK's chat client in node: AbstractChat (what useChat wraps) over a plain state.
import { AbstractChat } from "ai";

class State {
  constructor() { this.status = "ready"; this.error = undefined; this.messages = []; }
  pushMessage(m) { this.messages = this.messages.concat(m); }
  popMessage() { this.messages = this.messages.slice(0, -1); }
  replaceMessage(i, m) { this.messages = [...this.messages.slice(0, i), m, ...this.messages.slice(i + 1)]; }
  snapshot(thing) { return structuredClone(thing); }
}

export class NodeChat extends AbstractChat {
  constructor(init) { super({ ...init, state: new State() }); }
}
