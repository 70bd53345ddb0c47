/**
 * When no `harness-lsp` is found: say so, with "How to install" (the README's section,
 * shipped in the extension) and "Choose…" (sets `harness.serverPath`).
 */
import * as vscode from "vscode";
import type { Discovery } from "./discovery";
import { SECTION } from "./settings";

export const HOW_TO_INSTALL = "How to install";
export const CHOOSE = "Choose…";

/** What the notification needs of the client: a restart, and whether the server then runs. */
export interface Restartable {
  refresh(): Promise<void>;
  readonly running: boolean;
  readonly problem: string | undefined;
}

export async function announceMissing(
  extensionUri: vscode.Uri,
  missing: Discovery & { found: false },
  client: Restartable,
): Promise<void> {
  const pick = await vscode.window.showWarningMessage(
    `${missing.problem} Install the harness-lsp package (pipx install . in a clone of harness-lsp) or choose the executable.`,
    HOW_TO_INSTALL,
    CHOOSE,
  );
  if (pick === HOW_TO_INSTALL) await openInstallGuide(extensionUri);
  if (pick === CHOOSE && (await chooseServer())) {
    await client.refresh();
    if (client.running) void vscode.window.showInformationMessage("Harness: the language server is running.");
    else if (client.problem) void vscode.window.showErrorMessage(client.problem);
  }
}

/** The README shipped in the extension (vsce stores it as readme.md). */
async function readme(extensionUri: vscode.Uri): Promise<vscode.Uri> {
  for (const name of ["readme.md", "README.md"]) {
    const uri = vscode.Uri.joinPath(extensionUri, name);
    try {
      await vscode.workspace.fs.stat(uri);
      return uri;
    } catch {
      // try the next spelling
    }
  }
  return vscode.Uri.joinPath(extensionUri, "README.md");
}

async function openInstallGuide(extensionUri: vscode.Uri): Promise<void> {
  const guide = await readme(extensionUri);
  try {
    await vscode.commands.executeCommand("markdown.showPreview", guide);
  } catch {
    await vscode.commands.executeCommand("vscode.open", guide);
  }
}

/** Ask for the executable and save it as `harness.serverPath`; false if the user cancelled. */
async function chooseServer(): Promise<boolean> {
  const picked = await vscode.window.showOpenDialog({
    title: "Choose the harness-lsp executable",
    openLabel: "Use as harness-lsp",
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: false,
  });
  const file = picked?.[0];
  if (!file) return false;
  await vscode.workspace.getConfiguration(SECTION).update("serverPath", file.fsPath, vscode.ConfigurationTarget.Global);
  return true;
}
