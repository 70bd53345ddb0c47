/**
 * Runs from the editor: Run Task (the goal, per folder), Cancel Run, the status bar fed by
 * `harness/budget` and `harness.status`, and the end-of-run notification (outcome, summary,
 * files changed; Show Trace, Revert).
 */
import * as vscode from "vscode";
import { MessageType } from "vscode-languageclient/node";
import { currentSettings, message, settingReader, ServerNotRunning, type HarnessClient } from "./client";
import { fileFolders, folderArg, pickFolder } from "./folders";
import { callCounts, endNotice, exact, oneLine, outcomeShort, plural } from "./format";
import { notifyWith, OPEN_SETTINGS, openSetting } from "./messages";
import { errorData } from "./words";
import { pickText } from "./plainText";
import { Cmd, type ErrorData, type RunFinished, type Status } from "./protocol";
import { SECTION } from "./settings";
import type { BudgetItem } from "./statusBar";
import type { StatusModel } from "./statusModel";

const LAST_GOAL = "harness.lastGoal";
const TRY_AGAIN = "Try Again";

/** `verify` for `harness.run`: the `harness.verify` setting (argv), when set. */
export function verifyArg(): { verify?: string[] } {
  const v = settingReader()("verify");
  return Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === "string") ? { verify: v } : {};
}

/**
 * The goal, in an input box that offers the last one and says what budget the run gets
 * (kept current if the settings change while the box is open).
 */
function askGoal(folder: vscode.WorkspaceFolder, last: string): Promise<string | undefined> {
  const box = vscode.window.createInputBox();
  box.title = "Harness: Run Task";
  box.placeholder = "e.g. Fix the failing test in tests/test_parser.py";
  box.value = last;
  box.ignoreFocusOut = true;
  const prompt = (): string => `What should the agent do in ${folder.name}? ${budgetLine()}`;
  box.prompt = prompt();
  return new Promise((resolve) => {
    const listeners = [
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION)) box.prompt = prompt();
      }),
      box.onDidChangeValue((text) => {
        box.validationMessage = text.trim() ? undefined : "Describe the task in a few words.";
      }),
      box.onDidAccept(() => {
        if (!box.value.trim()) return;
        resolve(box.value);
        box.hide();
      }),
      box.onDidHide(() => {
        resolve(undefined);
        for (const l of listeners) l.dispose();
        box.dispose();
      }),
    ];
    box.show();
  });
}

/** "Budget: 2,000,000 tokens, 100 steps." — what the settings give the run. */
function budgetLine(): string {
  const s = currentSettings();
  const n = (v: unknown): string => (typeof v === "number" ? exact(v) : String(v));
  return `Budget: ${n(s.tokenBudget)} tokens, ${n(s.maxSteps)} steps.`;
}

export interface RunActions {
  showTrace(runId?: number): Promise<void>;
  revertRun(runId?: number): Promise<void>;
  /** The conversation panel is on screen (its end line says how the run went). */
  panelVisible?(): boolean;
  showPanel?(): Promise<void>;
  /** Run Task's goal, run in the panel (drawn live there). */
  runInPanel?(goal: string): Promise<void>;
  /** A run's error (a provider's reason), for the panel to show inline. */
  runError?(runId: number, error: ErrorData): void;
}

export class Runs {
  /** The files each run of this window changed, as its `harness/runFinished` said. */
  private readonly changed = new Map<number, readonly string[]>();

  constructor(
    private readonly client: HarnessClient,
    private readonly model: StatusModel,
    private readonly item: BudgetItem,
    private readonly state: vscode.Memento,
    private readonly actions: RunActions,
  ) {}

  /** Listen to the server: budgets, run ends, and a fresh status after every (re)start. */
  wire(): vscode.Disposable[] {
    return [
      this.client.onBudget((b) => {
        this.model.budget(b);
        this.item.render();
      }),
      this.client.onRunFinished((f) => this.finished(f)),
      this.client.onReady(() => {
        // A new server process: the runs of the last one ended with it.
        this.model.serverStarted();
        this.item.render();
        void this.refreshStatus();
      }),
    ];
  }

  /** `harness.status`: the notes count, and any run already in progress. */
  async refreshStatus(): Promise<void> {
    try {
      const status = await this.client.command<Status>(Cmd.status);
      this.model.status(status);
      this.item.render();
    } catch (error) {
      this.client.log(`harness.status: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** `draft`: a goal typed before a failure, offered again (never thrown away). */
  async runTask(draft?: string): Promise<void> {
    const folder = await pickFolder("Run the task in which folder?");
    if (!folder) return;
    const goal = await askGoal(folder, draft ?? this.state.get<string>(LAST_GOAL, ""));
    if (goal === undefined || !goal.trim()) return;
    await this.state.update(LAST_GOAL, goal);
    if (this.actions.runInPanel && folder === fileFolders()[0]) return this.actions.runInPanel(goal);
    let runId: number;
    try {
      ({ runId } = await this.client.command<{ runId: number }>(Cmd.run, {
        goal,
        workspaceFolder: folderArg(folder),
        ...verifyArg(),
      }));
    } catch (error) {
      await this.runFailed(error, goal);
      return;
    }
    this.client.log(`run ${runId} started in ${folder.uri.fsPath}: ${oneLine(goal, 120)}`);
    this.model.runStarted(runId);
    this.item.render();
  }

  /** Harness: Run Task failed to start: say why in VS Code's words, with what fixes it
   * ("Choose…" for a missing server, "Open Settings"), then offer the same goal again. */
  private async runFailed(error: unknown, goal: string): Promise<void> {
    this.client.log(`Run Task: ${message(error)}`);
    if (error instanceof ServerNotRunning) {
      await this.client.explainNotRunning();
      if (this.client.running) await this.runTask(goal);
      return;
    }
    const pick = await notifyWith(MessageType.Error, `Harness: ${message(error)}`, errorData(error), TRY_AGAIN);
    if (pick === TRY_AGAIN) await this.runTask(goal);
  }

  async cancelRun(): Promise<void> {
    const status = await this.client.command<Status>(Cmd.status);
    const runs = status.runs;
    if (runs.length === 0) {
      void vscode.window.showInformationMessage("Harness: no run is in progress.");
      return;
    }
    let runId = runs[0].runId;
    if (runs.length > 1) {
      const pick = await vscode.window.showQuickPick(
        runs.map((r) => ({
          label: `Run ${r.runId}`,
          description: `step ${r.step}/${r.maxSteps}`,
          detail: pickText(oneLine(r.goal)),
          runId: r.runId,
        })),
        { placeHolder: "Cancel which run?" },
      );
      if (!pick) return;
      runId = pick.runId;
    }
    const { cancelled } = await this.client.command<{ cancelled: boolean }>(Cmd.cancel, { runId });
    if (!cancelled) void vscode.window.showInformationMessage(`Harness: run ${runId} had already ended.`);
  }

  filesChanged(runId: number): readonly string[] | undefined {
    return this.changed.get(runId);
  }

  private finished(f: RunFinished): void {
    if (Array.isArray(f.filesChanged)) this.changed.set(f.runId, f.filesChanged);
    this.model.runFinished(f);
    this.item.render();
    void this.refreshStatus();
    void this.announce(f);
  }

  private async announce(f: RunFinished): Promise<void> {
    const error = this.client.takeRunError(f.runId);
    if (error !== undefined) this.actions.runError?.(f.runId, error);
    if (this.actions.panelVisible?.()) return; // the panel's end line says it
    if (this.actions.showPanel) return this.announceShort(f, error !== undefined);
    const notice = endNotice(f, error);
    const buttons = notice.setting ? [OPEN_SETTINGS, "Show Trace"] : ["Show Trace"];
    // Revert only when the run changed something (or the server does not say).
    if (!Array.isArray(f.filesChanged) || f.filesChanged.length > 0) buttons.push("Revert");
    const show =
      notice.severity === "info"
        ? vscode.window.showInformationMessage
        : notice.severity === "warning"
          ? vscode.window.showWarningMessage
          : vscode.window.showErrorMessage;
    const pick = await show(notice.text, ...buttons);
    if (pick === OPEN_SETTINGS && notice.setting) await openSetting(notice.setting);
    if (pick === "Show Trace") await this.actions.showTrace(f.runId);
    if (pick === "Revert") await this.actions.revertRun(f.runId);
  }

  /** The panel is hidden: one short notification, counts only, and "Show" opens the panel. */
  private async announceShort(f: RunFinished, failed: boolean): Promise<void> {
    const bits = [`Harness: run ${f.runId} ${outcomeShort(f.outcome)}`, plural(f.steps, "step")];
    const files = Array.isArray(f.filesChanged) ? f.filesChanged.length : 0;
    if (files) bits.push(`${plural(files, "file")} changed`);
    const counts = callCounts(f);
    if (counts) bits.push(counts);
    const show =
      failed || f.outcome === "provider_error"
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
    const pick = await show(bits.join(" · "), "Show");
    if (pick === "Show") await this.actions.showPanel?.();
  }
}
