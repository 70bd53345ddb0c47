/** Which workspace folder a command is about: the only one, or the one the user picks. */
import * as vscode from "vscode";

export function fileFolders(): vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file");
}

/** The folder to act on, or undefined (the user was told why, or dismissed the pick). */
export async function pickFolder(placeHolder: string): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = fileFolders();
  if (folders.length === 0) {
    void vscode.window.showWarningMessage("Harness works on a folder: open one first (File › Open Folder…).");
    return undefined;
  }
  if (folders.length === 1) return folders[0];
  return vscode.window.showWorkspaceFolderPick({ placeHolder, ignoreFocusOut: true });
}

/** What the server's `workspaceFolder` parameter takes: the folder's absolute path. */
export function folderArg(folder: vscode.WorkspaceFolder): string {
  return folder.uri.fsPath;
}
