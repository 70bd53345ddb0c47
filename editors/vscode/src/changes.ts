/**
 * Diffs for the panel (SPEC §11): a `TextDocumentContentProvider` serves texts the editor
 * has no file for — a file's text before the conversation changed it, a write's text as an
 * approval proposes it — so that `vscode.diff` shows them against the file on disk.
 */
import * as vscode from "vscode";
import { applyUnifiedDiff } from "./patch";

export const BEFORE_SCHEME = "harness-before";

export class TextsProvider implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private serial = 0;

  register(): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, this);
  }

  /** A read-only document of `text`, named like `path` (so it gets the file's language). */
  uri(path: string, text: string, label: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: BEFORE_SCHEME, path: `/${path}`, query: `${label}-${++this.serial}` });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }
}

function fileUri(folder: vscode.Uri, path: string): vscode.Uri {
  return vscode.Uri.joinPath(folder, ...path.split("/"));
}

async function diskText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/** The conversation's change of `path`: its text before ↔ the file now. */
export async function openChangeDiff(
  texts: TextsProvider,
  folder: vscode.Uri,
  path: string,
  before: string | null,
): Promise<void> {
  const left = texts.uri(path, before ?? "", "before");
  const file = fileUri(folder, path);
  const right = (await diskText(file)) === undefined ? texts.uri(path, "", "deleted") : file;
  await vscode.commands.executeCommand("vscode.diff", left, right, `${path} (before Harness ↔ now)`);
}

/** An approval's proposed write: the file now ↔ the file after the write. When the diff
 * cannot be laid over the file (it changed, or a binary summary), the diff itself is shown. */
export async function openProposedDiff(
  texts: TextsProvider,
  folder: vscode.Uri,
  path: string,
  diff: string,
): Promise<void> {
  const now = (await diskText(fileUri(folder, path))) ?? "";
  const after = applyUnifiedDiff(now, diff);
  if (after === undefined) {
    const doc = await vscode.workspace.openTextDocument({ content: diff, language: "diff" });
    await vscode.window.showTextDocument(doc, { preview: true });
    return;
  }
  const left = texts.uri(path, now, "now");
  const right = texts.uri(path, after, "proposed");
  await vscode.commands.executeCommand("vscode.diff", left, right, `${path} (now ↔ as the agent would write it)`);
}
