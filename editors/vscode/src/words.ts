/**
 * The server's texts in VS Code's words (SPEC §11): a setting is named as the Settings
 * editor shows it ("Harness › Provider: Base Url") and can be opened with "Open Settings";
 * a command as the Command Palette shows it; never a CLI flag or a protocol name. Worded
 * from the server's structured `data`, never by parsing its sentences. Pure.
 */
import { type ErrorData } from "./protocol";

const CAP = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);

/** "contextBudget" → "Context Budget". */
function words(camel: string): string {
  return camel
    .split(/(?=[A-Z])/)
    .map(CAP)
    .join(" ");
}

/** `provider.baseUrl` → "Harness › Provider: Base Url"; `tokenBudget` → "Harness: Token Budget". */
export function settingTitle(key: string): string {
  const parts = key.split(".");
  const name = words(parts[parts.length - 1]);
  const groups = parts.slice(0, -1).map(words);
  return `${["Harness", ...groups].join(" › ")}: ${name}`;
}

export interface Words {
  text: string;
  /** The full setting id to open with "Open Settings", when the text is about one. */
  setting?: string;
}

const COMMANDS: Record<string, string> = {
  "harness.cancel": "Harness: Cancel Run",
  "harness.trust": "Harness: Trust This Folder",
  "harness.run.revert": "Harness: Revert Run",
  "harness.run": "Harness: Run Task",
};

/**
 * A server text in VS Code's words, from the facts of its `data` (docs/server.md, Errors):
 * a bad setting is said from `{setting, problem, refusesRuns}`; the setting a failure is
 * about (`data.setting`, which the server's text names as "the setting KEY") is named as
 * the Settings editor shows it; a missing key points at Harness: Set API Key; a command id
 * in parentheses becomes its palette title. The text is never parsed.
 */
export function vscodeWords(message: string, data?: ErrorData): Words {
  const key = typeof data?.setting === "string" ? data.setting : undefined;
  let text = message;
  if (data?.kind === "invalidSetting" && key !== undefined) {
    const then = data.refusesRuns
      ? "runs are refused until it is fixed, so that none goes to the provider's hosted API instead"
      : "using the default";
    text = `Harness: the setting ${settingTitle(key)} is invalid: ${data.problem ?? "not a valid value"}; ${then}`;
  } else if (key !== undefined) {
    text = text.split(`the setting ${key}`).join(settingTitle(key));
  }
  if (data?.missing === "apiKey") text += " — or run Harness: Set API Key";
  for (const [id, title] of Object.entries(COMMANDS)) text = text.split(`(${id})`).join(`(${title})`);
  return key === undefined ? { text } : { text, setting: `harness.${key}` };
}

/** The `data` of a failure: a JSON-RPC error's (vscode-languageclient's ResponseError), or
 * a `window/showMessage`'s. */
export function errorData(error: unknown): ErrorData | undefined {
  if (typeof error !== "object" || error === null || !("data" in error)) return undefined;
  const data: unknown = error.data;
  return typeof data === "object" && data !== null ? data : undefined;
}

/** The server's "run N ended" message, known by its `data` (`kind: "runEnded"`): kept to
 * join the run's end notification, so the end of a run is one notification. */
export function runEndedMessage(data: ErrorData | undefined): (ErrorData & { runId: number }) | undefined {
  return data?.kind === "runEnded" && typeof data.runId === "number" ? { ...data, runId: data.runId } : undefined;
}
