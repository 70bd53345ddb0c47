/**
 * Trust This Folder (SPEC §6.3, §10): record the folder as trusted in the user's harness
 * config (`harness.trust`), so its `.harness/policy.toml` may allow as well as deny and ask.
 * In VS Code itself the server takes Workspace Trust (`trusted`) as the verdict; the list
 * is what the command line and other editors go by.
 */
import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import { folderArg, pickFolder } from "./folders";
import { plainText } from "./plainText";
import { Cmd } from "./protocol";

/** What trusting needs of the client: one server command (not `HarnessClient` itself, which
 * imports this module for `serverCommandGuard`: no import cycle, tools/check_ts_cycles.py). */
export interface CommandRunner {
  command<T>(name: string, args?: object): Promise<T>;
}

/** Whether the harness trusts every folder of the window (`harness.status`'s
 * `workspaceFolders[].trusted`: its own list, or the verdict VS Code sent); false until the
 * server has said so. With Workspace Trust turned off this decides whether a workspace's
 * `.vscode/settings.json` may set what runs (`harness.verify`) or raise a cap (issue 30). */
let harnessTrusted = false;

export function harnessTrusts(): boolean {
  return harnessTrusted;
}

/** What reading the harness's trust needs of the client. */
export interface TrustClient extends CommandRunner {
  pushSettings(): Promise<void>;
}

interface FolderStatus {
  trusted?: boolean;
}

/** Ask the server again (after it started, after Trust This Folder); new settings are pushed
 * when the answer changed. A server that does not say trusts nothing. */
export async function refreshHarnessTrust(client: TrustClient): Promise<void> {
  const status = await client.command<{ workspaceFolders?: FolderStatus[] }>(Cmd.status);
  const folders = Array.isArray(status.workspaceFolders) ? status.workspaceFolders : [];
  const now = folders.length > 0 && folders.every((f) => f.trusted === true);
  if (now === harnessTrusted) return;
  harnessTrusted = now;
  await client.pushSettings();
}

export async function trustFolder(client: TrustClient): Promise<void> {
  const folder = await pickFolder("Trust which folder?");
  if (!folder) return;
  if (!vscode.workspace.isTrusted) {
    const pick = await vscode.window.showWarningMessage(
      "VS Code does not trust this workspace (Restricted Mode). Trust it in VS Code first.",
      "Manage Workspace Trust",
    );
    if (pick) await vscode.commands.executeCommand("workbench.trust.manage");
    return;
  }
  const ok = await vscode.window.showWarningMessage(
    `Trust ${plainText(folder.name)} for the Harness agent?`,
    {
      modal: true,
      detail:
        `${plainText(folder.uri.fsPath)}\n\nIts .harness/policy.toml can then allow acts (such as running commands) that ` +
        "your own policy would ask about. Until then only its deny and ask rules apply.",
    },
    "Trust",
  );
  if (ok !== "Trust") return;
  await client.command(Cmd.trust, { workspaceFolder: folderArg(folder), trusted: true });
  await refreshHarnessTrust(client);
  void vscode.window.showInformationMessage(
    `Harness: ${plainText(folder.name)} is in your trusted folders (for the harness command line and other editors too).`,
  );
}

export const TRUST_REFUSED =
  "Harness: something other than Harness: Trust This Folder asked the server to trust a folder " +
  "(a keybinding, another extension or a command link); it was refused. Use Harness: Trust This Folder.";

/**
 * Middleware for the server's commands run as VS Code commands: vscode-languageclient
 * registers them, so a keybinding, another extension or a `command:` link rendered live
 * anywhere can run them. `harness.trust` is refused that way — a folder is trusted with
 * Trust This Folder, which asks first (issue 20 item 5: one click on a link in the model's
 * summary trusted the folder). The extension's own commands send requests directly.
 */
export const serverCommandGuard: Middleware["executeCommand"] = (command, args, next) => {
  if (command !== Cmd.trust) return next(command, args) as unknown;
  void vscode.window.showWarningMessage(TRUST_REFUSED);
  return undefined;
};
