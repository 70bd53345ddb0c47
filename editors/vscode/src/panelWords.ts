/**
 * A server error as the panel says it (issue 36): no command id in front (`harness.run: …`),
 * settings named as the Settings editor names them, and which button fixes it — all from
 * the error's structured `data` (docs/server.md, Errors), never by parsing its sentence. Pure.
 */
import { type ErrorData } from "./protocol";
import { vscodeWords } from "./words";

export interface ErrorWords {
  text: string;
  /** The setting that fixes it ("Open Settings"). */
  setting?: string;
  /** It is about the API key ("Set API Key"). */
  key?: boolean;
}

const SHOWN_PREFIX = "Harness: ";

/** The text without the "Harness: " the extension adds and the command id `data.command`
 * names (`harness.run: …`): prefixes known from the data, cut off, nothing else touched. */
function bare(message: string, data?: ErrorData): string {
  let text = message.startsWith(SHOWN_PREFIX) ? message.slice(SHOWN_PREFIX.length) : message;
  const command = typeof data?.command === "string" ? `${data.command}: ` : undefined;
  if (command !== undefined && text.startsWith(command)) text = text.slice(command.length);
  return text;
}

/** A server error in VS Code's words. */
export function errorWords(message: string, data?: ErrorData): ErrorWords {
  const said = vscodeWords(bare(message, data), data);
  const key = data?.missing === "apiKey";
  return { text: said.text, ...(said.setting ? { setting: said.setting } : {}), ...(key ? { key } : {}) };
}
