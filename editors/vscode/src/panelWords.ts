/**
 * A server error as the panel says it (issue 36): no command id in front (`harness.run: …`),
 * settings named as the Settings editor names them, and which button fixes it. Pure.
 */
import { vscodeWords } from "./words";

export interface ErrorWords {
  text: string;
  /** The setting that fixes it ("Open Settings"). */
  setting?: string;
  /** It is about the API key ("Set API Key"). */
  key?: boolean;
}

/** A server error in VS Code's words: no command id in front (`harness.run: …`), settings
 * named as the Settings editor names them. Pure. */
export function errorWords(message: string): ErrorWords {
  const bare = message.replace(/^(Harness: )?harness(\.[\w]+)+: /, "");
  const said = vscodeWords(bare);
  const key = /\bAPI key\b/i.test(bare);
  return { text: said.text, ...(said.setting ? { setting: said.setting } : {}), ...(key ? { key } : {}) };
}
