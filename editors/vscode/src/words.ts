/**
 * The server's texts in VS Code's words (SPEC §11): a setting is named as the Settings
 * editor shows it ("Harness › Provider: Base Url") and can be opened with "Open Settings";
 * a command as the Command Palette shows it; never a CLI flag or a protocol name. Pure.
 */

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

/** CLI flags → the setting that does the same in VS Code. */
const FLAGS: Record<string, string> = {
  "--base-url": "provider.baseUrl",
  "--provider": "provider.name",
  "--model": "provider.model",
  "--api-key-env": "provider.apiKeyEnv",
  "--store": "storePath",
  "--budget": "tokenBudget",
  "--max-steps": "maxSteps",
  "--verify": "verify",
};

const COMMANDS: Record<string, string> = {
  "harness.cancel": "Harness: Cancel Run",
  "harness.trust": "Harness: Trust This Folder",
  "harness.run.revert": "Harness: Revert Run",
  "harness.run": "Harness: Run Task",
};

export function vscodeWords(message: string): Words {
  let setting: string | undefined;
  let text = message.replace(
    /^harness: invalid setting `([\w.]+)`: (.*?) \(from [\w/]+\)/s,
    (_all, key: string, what: string) => {
      setting = `harness.${key}`;
      return `Harness: the setting ${settingTitle(key)} is invalid: ${what}`;
    },
  );
  text = text.replace(/ ?\(from (didChangeConfiguration|initializationOptions|workspace\/configuration)\)/g, "");
  text = text.replace(/\(or point --base-url at a server that needs none\)/, () => {
    setting ??= "harness.provider.baseUrl";
    return `— run Harness: Set API Key, or set ${settingTitle("provider.baseUrl")} to a server that needs none`;
  });
  text = text.replace(/--[a-z-]+/g, (flag) => {
    const key = FLAGS[flag];
    if (key === undefined) return flag;
    setting ??= `harness.${key}`;
    return settingTitle(key);
  });
  text = text.replace(/\bthe base URL\b/g, () => {
    setting ??= "harness.provider.baseUrl";
    return `the base URL (${settingTitle("provider.baseUrl")})`;
  });
  text = text.replace(/\((harness\.[\w.]+)\)/g, (all, id: string) => (COMMANDS[id] ? `(${COMMANDS[id]})` : all));
  return setting === undefined ? { text } : { text, setting };
}

/** The server's own "harness: run N ended OUTCOME: ERROR" (sent just before the run's
 * `harness/runFinished`): recognised so that the end of a run is one notification. */
export function runEndedMessage(message: string): { runId: number; error: string } | undefined {
  const m = /^harness: run (\d+) ended [a-z_]+: (.*)$/s.exec(message);
  return m ? { runId: Number(m[1]), error: m[2] } : undefined;
}
