/**
 * What an undo broke (issue 36): after a hunk, a file or the whole conversation is put back,
 * the problems it introduced are said — the server's (`diagnostics` of the undo's result,
 * harness/undo_check.py) when it has a language back end, else VS Code's own: the errors of
 * the files the undo touched, as the editor's language servers report them, against those
 * reported before the undo.
 */
import * as vscode from "vscode";
import { fileList, plural } from "./format";
import { plainText } from "./plainText";

/** How long the editor's language servers get to report on a file the undo wrote. */
const SETTLE_MS = 4000;

/** The `diagnostics` fields of an undo's result (docs/server.md, "What an undo broke"). */
export interface UndoDiagnostics {
  diagnostics?: { path?: string; line?: number; message?: string }[] | null;
  diagnosticsReason?: string | null;
}

function errorsOf(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
}

function key(d: vscode.Diagnostic): string {
  return `${d.message}\u0000${d.source ?? ""}`;
}

/** The errors of `uris` now, to compare with after the undo. */
export function snapshot(uris: readonly vscode.Uri[]): Map<string, Set<string>> {
  return new Map(uris.map((u) => [u.toString(), new Set(errorsOf(u).map(key))]));
}

/** Resolves once the diagnostics of `uris` hold an error that was not there `before` (a
 * language server re-checked the undone file), or after `ms` (nothing new to say). */
function settled(uris: readonly vscode.Uri[], before: Map<string, Set<string>>, ms: number): Promise<void> {
  const wanted = new Set(uris.map((u) => u.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => wanted.has(u.toString())) && introduced(uris, before).length > 0) done();
    });
    if (introduced(uris, before).length > 0) done();
    function done(): void {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    }
  });
}

/** One line per new error: `calc.py:3: message`. */
function introduced(uris: readonly vscode.Uri[], before: Map<string, Set<string>>): string[] {
  const lines: string[] = [];
  for (const uri of uris) {
    const seen = before.get(uri.toString()) ?? new Set<string>();
    for (const d of errorsOf(uri)) {
      if (seen.has(key(d))) continue;
      lines.push(`${vscode.workspace.asRelativePath(uri)}:${d.range.start.line + 1}: ${d.message}`);
    }
  }
  return lines;
}

function fromServer(result: UndoDiagnostics): string[] | undefined {
  if (!Array.isArray(result.diagnostics)) return undefined;
  return result.diagnostics.map((d) => `${d.path ?? "?"}${d.line ? `:${d.line}` : ""}: ${d.message ?? ""}`);
}

/**
 * Say what the undo did (`what`, e.g. "undid 1 change in calc.py") and the errors it
 * introduced; `before` is `snapshot(uris)` taken before the undo.
 */
export async function reportUndo(
  what: string,
  uris: readonly vscode.Uri[],
  before: Map<string, Set<string>>,
  result: UndoDiagnostics,
): Promise<string[]> {
  let found = fromServer(result);
  if (found === undefined) {
    await settled(uris, before, SETTLE_MS);
    found = introduced(uris, before);
  }
  if (found.length === 0) {
    void vscode.window.showInformationMessage(plainText(`Harness: ${what}.`));
    return found;
  }
  const text = `Harness: ${what}; it brought back ${plural(found.length, "problem")}: ${fileList(found, 3)}`;
  const pick = await vscode.window.showWarningMessage(plainText(text), "Show Problems");
  if (pick) await vscode.commands.executeCommand("workbench.actions.view.problems");
  return found;
}

/** `calc.py`, or `3 files (a, b, c)`. */
export function filesWords(paths: readonly string[]): string {
  return paths.length === 1 ? paths[0] : `${plural(paths.length, "file")} (${fileList(paths, 5)})`;
}

/** The question before a file goes back (the CodeLens "Undo all…", the panel's ↶): true
 * when the user said "Undo File". */
export async function askUndoFile(rel: string): Promise<boolean> {
  const ok = await vscode.window.showWarningMessage(
    plainText(`Undo the agent's changes to ${rel}?`),
    {
      modal: true,
      detail:
        "The file goes back to its text before this conversation changed it — kept changes too. " +
        "A file the agent created is deleted.",
    },
    "Undo File",
  );
  return ok === "Undo File";
}
