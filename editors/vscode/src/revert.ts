/**
 * Revert Run (SPEC §10): pick a run, see the files it changed, confirm; files changed since
 * the run wrote them (or unsaved in an editor) are listed and overwritten only if the user
 * says so (`force`).
 */
import * as vscode from "vscode";
import type { HarnessClient } from "./client";
import { fileList, oneLine, outcomeShort, plural, short } from "./format";
import { plainText, pickText } from "./plainText";
import { Cmd, type RevertFile, type RevertResult, type RunSummary, type TraceRun } from "./protocol";

const RUNS_LIMIT = 50;

function describe(files: readonly RevertFile[]): string {
  return files.map((f) => (f.reason ? `${f.path} (${f.reason})` : f.path)).join("; ");
}

export class Revert {
  /** `filesChanged(runId)`: what `harness/runFinished` said, for a trace without the field. */
  constructor(
    private readonly client: HarnessClient,
    private readonly filesChanged: (runId: number) => readonly string[] | undefined = () => undefined,
  ) {}

  private async pickRun(): Promise<number | undefined> {
    const runs = await this.client.command<RunSummary[]>(Cmd.traceRuns, { limit: RUNS_LIMIT });
    const done = runs.filter((r) => r.outcome !== null);
    if (done.length === 0) {
      void vscode.window.showInformationMessage("Harness: no finished run to revert.");
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      done.map((r) => ({
        label: `Run ${r.runId}`,
        description: `${outcomeShort(r.outcome ?? "")} · ${plural(r.steps, "step")} · ${short(r.spentTokens)} tokens`,
        detail: pickText(oneLine(r.goal, 160)),
        runId: r.runId,
      })),
      { title: "Harness: Revert Run", placeHolder: "Put back the files of which run?", matchOnDetail: true },
    );
    return pick?.runId;
  }

  async run(runId?: number): Promise<void> {
    const id = runId ?? (await this.pickRun());
    if (id === undefined) return;
    const trace = await this.client.command<TraceRun>(Cmd.traceRun, { runId: id });
    const files = Array.isArray(trace.run.filesChanged) ? trace.run.filesChanged : this.filesChanged(id);
    const detail = Array.isArray(files)
      ? files.length
        ? `It changed ${plural(files.length, "file")}: ${plainText(fileList(files, 20))}. Each goes back to its content before the run; a file it created is deleted.`
        : "The run changed no file."
      : "Every file the run wrote goes back to its content before the run; a file it created is deleted.";
    const ok = await vscode.window.showWarningMessage(`Revert run ${id}?`, { modal: true, detail }, "Revert");
    if (ok !== "Revert") return;
    const result = await this.client.command<RevertResult>(Cmd.revert, { runId: id });
    const refused = result.files.filter((f) => f.action === "refused");
    if (refused.length) {
      const force = await vscode.window.showWarningMessage(
        `${plural(refused.length, "file")} of run ${id} changed since the run wrote them, or hold unsaved changes.`,
        {
          modal: true,
          detail: `${plainText(describe(refused))}.\n\nOverwrite them with their content before the run? Your changes to them are lost.`,
        },
        "Overwrite",
      );
      if (force === "Overwrite") {
        this.report(id, await this.client.command<RevertResult>(Cmd.revert, { runId: id, force: true }));
        return;
      }
    }
    this.report(id, result);
  }

  private report(runId: number, r: RevertResult): void {
    const by = (action: string): RevertFile[] => r.files.filter((f) => f.action === action);
    const parts: string[] = [];
    const restored = [...by("restored"), ...by("deleted")];
    if (restored.length) parts.push(`put back ${fileList(restored.map((f) => f.path))}`);
    if (by("unchanged").length) parts.push(`${plural(by("unchanged").length, "file")} already as before`);
    const left = [...by("refused"), ...by("failed")];
    if (left.length) parts.push(`left ${describe(left)}`);
    if (parts.length === 0) parts.push("the run wrote no file");
    const text = plainText(`Harness: revert of run ${runId}: ${parts.join("; ")}.`);
    void (left.length ? vscode.window.showWarningMessage(text) : vscode.window.showInformationMessage(text));
  }
}
