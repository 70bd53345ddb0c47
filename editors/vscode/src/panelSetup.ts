/**
 * The panel's first-run and error texts (issue 36): what the run needs (provider and key)
 * before the first Enter, errors inside the panel with the button that fixes them (the words:
 * `panelWords`), and the model picker beside the input. Reads VS Code's settings and
 * secret storage.
 */
import * as vscode from "vscode";
import { API_KEY_ENV, API_KEY_SECRET } from "./client";
import { escapeHtml as h } from "./html";
import type { Setup } from "./panelHtml";
import { plainText } from "./plainText";
import { SECTION } from "./settings";
import type { ErrorWords } from "./panelWords";

const KEY_VARS: Record<string, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  openrouter: "OPENROUTER_API_KEY",
};

export function providerName(): string {
  const set = vscode.workspace.getConfiguration(SECTION).get<string>("provider.name");
  return set || process.env.HARNESS_PROVIDER || "openai";
}

/** Whether the first run has a key (stored, in the environment, or none needed). */
export async function setupState(secrets: vscode.SecretStorage): Promise<Setup> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const provider = providerName();
  const envVar = config.get<string>("provider.apiKeyEnv") || KEY_VARS[provider];
  const keyKnown =
    provider === "ollama" ||
    Boolean(config.get<string>("provider.baseUrl") || process.env.HARNESS_BASE_URL) ||
    Boolean(process.env[API_KEY_ENV] || (envVar && process.env[envVar])) ||
    (await secrets.get(API_KEY_SECRET)) !== undefined;
  return { provider, keyKnown };
}

export function errorHtml(w: ErrorWords): string {
  const buttons = [
    w.key ? `<button data-action="setApiKey">Set API Key for ${h(providerName())}</button>` : "",
    w.setting
      ? `<button class="secondary" data-action="openSetting" data-setting="${h(w.setting)}">Open Settings</button>`
      : "",
    `<button class="secondary" data-action="dismissError">Dismiss</button>`,
  ].join("");
  return `<div>${h(plainText(w.text))}</div><div class="buttons">${buttons}</div>`;
}

export function modelHtml(): string {
  const model = vscode.workspace.getConfiguration(SECTION).get<string>("provider.model") || "default model";
  return `<button class="secondary model" data-action="chooseModel" title="The model the next run uses (Harness › Provider: Model)">${h(model)} ▾</button>`;
}

/** The models the provider lists (an OpenAI-compatible `GET /models`), else none. */
async function listedModels(secrets: vscode.SecretStorage): Promise<string[]> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const base =
    config.get<string>("provider.baseUrl") || (providerName() === "openai" ? "https://api.openai.com/v1" : "");
  if (!/^https?:\/\//.test(base)) return [];
  const key = (await secrets.get(API_KEY_SECRET)) ?? process.env[API_KEY_ENV] ?? process.env[KEY_VARS[providerName()]];
  try {
    const res = await fetch(`${base.replace(/\/$/, "")}/models`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(3000),
    });
    if (!res.ok) return [];
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    return (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === "string");
  } catch {
    return [];
  }
}

/** The model picker: the provider's models where it lists them, else the setting; a name
 * typed in the box is taken too. Saved to the user's `harness.provider.model`. */
export async function chooseModel(secrets: vscode.SecretStorage): Promise<boolean> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const now = config.get<string>("provider.model") ?? "";
  const pick = vscode.window.createQuickPick();
  pick.title = `Harness: the model (${providerName()})`;
  pick.placeholder = "Type a model name, or pick one the provider lists";
  pick.busy = true;
  pick.items = now ? [{ label: now, description: "current" }] : [];
  pick.show();
  void listedModels(secrets).then((ids) => {
    pick.busy = false;
    const listed = ids.map((label) => ({ label, ...(label === now ? { description: "current" } : {}) }));
    if (listed.length) pick.items = listed;
  });
  const chosen = await new Promise<string | undefined>((resolve) => {
    pick.onDidAccept(() => resolve(pick.selectedItems[0]?.label ?? (pick.value.trim() || undefined)));
    pick.onDidHide(() => resolve(undefined));
  });
  pick.dispose();
  if (!chosen || chosen === now) return false;
  await config.update("provider.model", chosen, vscode.ConfigurationTarget.Global);
  return true;
}
