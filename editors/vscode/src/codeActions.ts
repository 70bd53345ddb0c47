/**
 * The lightbulb (issue 36): "Fix with Harness" on a diagnostic, "Ask Harness…" on a
 * selection — both `harness.attachAndFocus` (attach.ts) — and, on a change of the agent still
 * to review, "Keep this change" / "Undo this change" (also in the Changes diff, whose right
 * side is the file). The language server offers its own "Harness: …" actions to every LSP
 * editor (`harness.codeAction`); in VS Code they are dropped (`serverCodeActionFilter`) so the
 * menu holds each once.
 */
import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import { fixGoal, isServerHarnessAction, rangeLabel } from "./actionModel";
import { ATTACH_AND_FOCUS, type AttachRequest } from "./attach";
import { hunkAt, ReviewCmd, type PlacedHunk } from "./hunkModel";

/** What the provider needs of the review: the pending hunks of a document and its path. */
export interface HunkSource {
  placed(doc: vscode.TextDocument): PlacedHunk[];
  pathOf(uri: vscode.Uri): string | undefined;
}

const FIX = vscode.CodeActionKind.QuickFix.append("harness");
const ASK = vscode.CodeActionKind.RefactorRewrite.append("harness");

function lspRange(r: vscode.Range): AttachRequest["range"] {
  return {
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  };
}

function attachAction(title: string, kind: vscode.CodeActionKind, req: AttachRequest): vscode.CodeAction {
  const action = new vscode.CodeAction(title, kind);
  action.command = { title, command: ATTACH_AND_FOCUS, arguments: [req] };
  return action;
}

export class HarnessCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [FIX, ASK, vscode.CodeActionKind.QuickFix];

  constructor(private readonly hunks: HunkSource) {}

  register(): vscode.Disposable {
    return vscode.languages.registerCodeActionsProvider({ scheme: "file" }, this, {
      providedCodeActionKinds: HarnessCodeActions.kinds,
    });
  }

  provideCodeActions(
    doc: vscode.TextDocument,
    range: vscode.Range | vscode.Selection,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const uri = doc.uri.toString();
    const name = vscode.workspace.asRelativePath(doc.uri);
    const out: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      const diagnostic = {
        message: d.message,
        ...(d.source ? { source: d.source } : {}),
        ...(typeof d.code === "string" || typeof d.code === "number" ? { code: d.code } : {}),
        severity: d.severity,
      };
      const goal = fixGoal(rangeLabel(name, lspRange(d.range)), d);
      out.push(attachAction("Fix with Harness", FIX, { goal, uri, range: lspRange(d.range), diagnostic }));
    }
    if (!range.isEmpty) out.push(attachAction("Ask Harness…", ASK, { uri, range: lspRange(range) }));
    out.push(...this.hunkActions(doc, range.start.line));
    return out;
  }

  private hunkActions(doc: vscode.TextDocument, line: number): vscode.CodeAction[] {
    const rel = this.hunks.pathOf(doc.uri);
    const hunk = rel === undefined ? undefined : hunkAt(this.hunks.placed(doc), line);
    if (rel === undefined || !hunk) return [];
    const keep = new vscode.CodeAction("Keep this change (Harness)", vscode.CodeActionKind.QuickFix);
    keep.command = { title: keep.title, command: ReviewCmd.keepHunk, arguments: [rel, hunk.id] };
    const undo = new vscode.CodeAction("Undo this change (Harness)", vscode.CodeActionKind.QuickFix);
    undo.command = { title: undo.title, command: ReviewCmd.undoHunk, arguments: [rel, hunk.id] };
    return [keep, undo];
  }
}

/** LanguageClient middleware: the server's "Harness: …" actions left out (VS Code has its own). */
export const serverCodeActionFilter: Middleware["provideCodeActions"] = async (doc, range, context, token, next) => {
  const actions = await next(doc, range, context, token);
  return actions?.filter((a) => !isServerHarnessAction(a));
};
