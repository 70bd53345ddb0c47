/**
 * `harness.attachAndFocus` (issue 36): open the conversation panel with a piece of the
 * editor attached — what the code actions "Fix with Harness" and "Ask Harness…" run, and
 * what anything else in the extension may run. Argument (one object, `AttachRequest`):
 *
 *     {goal?: string, uri: string, range: {start: {line, character}, end: {line, character}},
 *      diagnostic?: {message: string, source?: string, code?: string | number, severity?: number}}
 *
 * `uri` a file URI string, `range` 0-based (LSP); `goal` is put in the prompt box (never over
 * text the user typed); the range becomes an attached chip. The panel is the sink
 * (`setAttachSink`); the run starts when the user sends.
 */
import * as vscode from "vscode";
import { rangeLabel, type Position } from "./actionModel";

export const ATTACH_AND_FOCUS = "harness.attachAndFocus";

export interface AttachRequest {
  goal?: string;
  uri: string;
  range: { start: Position; end: Position };
  diagnostic?: { message: string; source?: string; code?: string | number; severity?: number };
}

/** What the panel is given: the chip (`label` as shown) and the goal. */
export interface Attached {
  uri: string;
  range: { start: Position; end: Position };
  label: string;
}

export type AttachSink = (ref: Attached, goal: string | undefined) => Promise<void>;

function valid(r: unknown): r is AttachRequest {
  if (typeof r !== "object" || r === null) return false;
  const req = r as Partial<AttachRequest>;
  const pos = (p: unknown): boolean =>
    typeof p === "object" &&
    p !== null &&
    Number.isInteger((p as Position).line) &&
    Number.isInteger((p as Position).character);
  return typeof req.uri === "string" && pos(req.range?.start) && pos(req.range?.end);
}

/** The command, with the panel as its sink. */
export function registerAttach(sink: AttachSink): vscode.Disposable {
  return vscode.commands.registerCommand(ATTACH_AND_FOCUS, async (req: unknown) => {
    if (!valid(req)) {
      void vscode.window.showErrorMessage("Harness: Attach needs a file and a range.");
      return;
    }
    const uri = vscode.Uri.parse(req.uri);
    const name = vscode.workspace.asRelativePath(uri);
    const range = { start: req.range.start, end: req.range.end };
    await sink({ uri: req.uri, range, label: rangeLabel(name, range) }, req.goal);
  });
}
