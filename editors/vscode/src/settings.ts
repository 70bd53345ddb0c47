/**
 * Editor settings → the server's settings object (SPEC §7, camelCase), sent as
 * `initializationOptions` and with every `workspace/didChangeConfiguration`. Pure: the
 * configuration is read through an injected function, unit-tested.
 *
 * Empty strings mean "not set" and are left out, so the server's own defaults and its
 * environment (`HARNESS_PROVIDER`, `HARNESS_MODEL`, `HARNESS_BASE_URL`, `HARNESS_STORE`)
 * apply. `trusted` is VS Code's Workspace Trust verdict for the window — only when Workspace
 * Trust is enabled: with it turned off every folder reads as trusted, which says nothing
 * about this repository, so `trusted` is left out and the user's own list of trusted
 * folders decides (SPEC §6.3).
 */

export const SECTION = "harness";

/** Every `harness.*` setting the extension contributes, with its default (SPEC §2, §10). */
export const DEFAULTS = {
  serverPath: "",
  storePath: "",
  "provider.name": "",
  "provider.model": "",
  "provider.baseUrl": "",
  "provider.apiKeyEnv": "",
  tokenBudget: 2_000_000,
  maxSteps: 100,
  "contextBudget.maxTokens": 24_000,
  "contextBudget.share": 0.5,
  "contextBudget.lowWater": 0.25,
  contextWire: "transcript",
  verify: [] as readonly string[],
} as const;

export type SettingKey = keyof typeof DEFAULTS;

/** Reads one setting of the `harness` section (e.g. `config.get`). */
export type ReadSetting = (key: SettingKey) => unknown;

/**
 * What runs, where the data and the key go (SPEC §10): from the user's own settings only,
 * never a workspace's `.vscode/settings.json` — `"scope": "machine"` in package.json, and
 * read here from `inspect()`'s user value so that a workspace value is ignored even if
 * VS Code passed it on.
 */
export const USER_ONLY: ReadonlySet<SettingKey> = new Set([
  "serverPath",
  "storePath",
  "provider.baseUrl",
  "provider.apiKeyEnv",
]);

/** The cost caps: a workspace's values only when the workspace is trusted (SPEC §10). */
export const COST_CAPS: ReadonlySet<SettingKey> = new Set([
  "tokenBudget",
  "maxSteps",
  "contextBudget.maxTokens",
  "contextBudget.share",
  "contextBudget.lowWater",
]);

/** What runs to check the work (`verify`, argv): like the caps, a workspace's value only
 * when the workspace is trusted. */
export const TRUSTED_ONLY: ReadonlySet<SettingKey> = new Set([...COST_CAPS, "verify"]);

/** The layers of one setting, as `WorkspaceConfiguration.inspect` gives them. */
export interface Layers {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * The value of `key` that may be used: the user's (or the default) for a user-only setting,
 * and for a cost cap when the workspace is not trusted; otherwise what VS Code resolved
 * (`resolved`, from `config.get`).
 */
export function permittedValue(
  key: SettingKey,
  layers: Layers | undefined,
  trusted: boolean,
  resolved: unknown,
): unknown {
  const user = layers?.globalValue ?? layers?.defaultValue;
  if (USER_ONLY.has(key)) return user;
  if (TRUSTED_ONLY.has(key) && !trusted) return user;
  return resolved;
}

/**
 * Whether a workspace's own TRUSTED_ONLY settings may be used: Workspace Trust's verdict
 * when it is on (the server then takes the same verdict), else whether the harness's own
 * list trusts the folder (`harness.status`) — with Trust off VS Code calls every folder
 * trusted, which says nothing of a cloned repository (issue 30, finding 3).
 */
export function settingsTrusted(verdict: boolean | undefined, harnessList: boolean): boolean {
  return verdict ?? harnessList;
}

/** What `readerFor` needs of a `WorkspaceConfiguration`. */
export interface Configuration {
  inspect(key: string): Layers | undefined;
  get(key: string): unknown;
}

/**
 * The settings as they may be used (`permittedValue`), a workspace's `verify` and cost caps
 * only when `verdict` — Workspace Trust's, `undefined` when it is turned off — is `true`
 * (issue 30): with Trust off VS Code calls every folder trusted, which says nothing of a
 * cloned repository, so its `.vscode/settings.json` neither runs a check nor raises a cap.
 * With Trust on the server takes the same verdict as the harness's own trust (SPEC §6.3).
 */
export function readerFor(config: Configuration, verdict: boolean | undefined): ReadSetting {
  const trusted = verdict === true;
  return (key: SettingKey) => permittedValue(key, config.inspect(key), trusted, config.get(key));
}

export interface ServerSettings {
  provider: { name?: string; model?: string; baseUrl?: string; apiKeyEnv?: string };
  storePath?: string;
  tokenBudget?: unknown;
  maxSteps?: unknown;
  contextBudget: { maxTokens?: unknown; share?: unknown; lowWater?: unknown };
  contextWire?: unknown;
  trusted?: boolean;
}

function text(read: ReadSetting, key: SettingKey): string | undefined {
  const value = read(key);
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** A value as the user set it (the server checks its type and range and says what is wrong). */
function value(read: ReadSetting, key: SettingKey): unknown {
  const v = read(key);
  if (v === undefined || v === null) return DEFAULTS[key];
  if (typeof v === "string" && v.trim() === "") return undefined;
  return v;
}

function defined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

/** `trusted`: Workspace Trust's verdict, or `undefined` when Workspace Trust is turned off. */
export function serverSettings(read: ReadSetting, trusted: boolean | undefined): ServerSettings {
  return defined({
    provider: defined({
      name: text(read, "provider.name"),
      model: text(read, "provider.model"),
      baseUrl: text(read, "provider.baseUrl"),
      apiKeyEnv: text(read, "provider.apiKeyEnv"),
    }),
    storePath: text(read, "storePath"),
    tokenBudget: value(read, "tokenBudget"),
    maxSteps: value(read, "maxSteps"),
    contextBudget: defined({
      maxTokens: value(read, "contextBudget.maxTokens"),
      share: value(read, "contextBudget.share"),
      lowWater: value(read, "contextBudget.lowWater"),
    }),
    contextWire: value(read, "contextWire"),
    trusted,
  });
}
