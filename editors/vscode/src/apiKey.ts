/**
 * `Harness: Set API Key`: the key goes to VS Code's SecretStorage (the OS keychain where
 * there is one) and reaches the server as `HARNESS_API_KEY` in its process environment —
 * never a setting, never a file, never a message of the LSP traffic. An empty answer
 * removes the stored key (the editor's environment then applies, as before).
 */
import * as vscode from "vscode";
import { API_KEY_SECRET, type HarnessClient } from "./client";
import { providerName } from "./panelSetup";

export async function setApiKey(secrets: vscode.SecretStorage, client: HarnessClient): Promise<void> {
  const had = (await secrets.get(API_KEY_SECRET)) !== undefined;
  const key = await vscode.window.showInputBox({
    title: `Harness: Set API Key for ${providerName()}`,
    prompt: had
      ? "A key is stored. Enter a new one, or leave empty and press Enter to remove it."
      : `The API key of ${providerName()} (Harness › Provider: Name). It is kept in VS Code's secret storage and given only to the Harness server.`,
    password: true,
    ignoreFocusOut: true,
    placeHolder: "sk-…",
  });
  if (key === undefined) return;
  if (key.trim() === "") {
    if (!had) return;
    await secrets.delete(API_KEY_SECRET);
  } else {
    await secrets.store(API_KEY_SECRET, key.trim());
  }
  // The server reads the key when it starts: start it again with the new one.
  await client.restart();
  void vscode.window.showInformationMessage(
    key.trim() === ""
      ? "Harness: the stored API key was removed."
      : "Harness: the API key is stored; the server uses it now.",
  );
}
