/**
 * When no `harness-lsp` is found: say so, with "How to install" (the README's section,
 * shipped in the extension) and "Choose…" (sets `harness.serverPath`).
 */
import * as vscode from "vscode";
import type { Discovery } from "./discovery";
import { SECTION } from "./settings";

export const HOW_TO_INSTALL = "How to install";
export const CHOOSE = "Choose…";

export async function announceMissing(extensionUri: vscode.Uri, missing: Discovery & { found: false }): Promise<void> {
  const pick = await vscode.window.showWarningMessage(
    `${missing.problem} Install the harness-lsp package (pipx install . in a clone of harness-lsp) or choose the executable.`,
    HOW_TO_INSTALL,
    CHOOSE,
  );
  if (pick === HOW_TO_INSTALL) await openInstallGuide(extensionUri);
  if (pick === CHOOSE) await chooseServer();
}

async function openInstallGuide(extensionUri: vscode.Uri): Promise<void> {
  const readme = vscode.Uri.joinPath(extensionUri, "README.md");
  try {
    await vscode.commands.executeCommand("markdown.showPreview", readme);
  } catch {
    await vscode.commands.executeCommand("vscode.open", readme);
  }
}

async function chooseServer(): Promise<void> {
  const picked = await vscode.window.showOpenDialog({
    title: "Choose the harness-lsp executable",
    openLabel: "Use as harness-lsp",
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: false,
  });
  const file = picked?.[0];
  if (!file) return;
  // Saving the setting restarts the client (see extension.ts).
  await vscode.workspace.getConfiguration(SECTION).update("serverPath", file.fsPath, vscode.ConfigurationTarget.Global);
}
