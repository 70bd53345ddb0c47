/**
 * What the `harness.budget` status bar item says, as a state machine fed by the server:
 * the notes count before any run, spent/budget and request/ceiling while a run is active,
 * the same with the run's outcome after it (until the next run starts). Pure: no `vscode`.
 */
import { budgetText, budgetTooltip, ICON, idleText, idleTooltip, isWarning, oneLine, type NotesCount } from "./format";
import type { ActiveRunStatus, Budget, RunFinished, Status } from "./protocol";
import { plainText } from "./plainText";

export interface StatusView {
  text: string;
  tooltip: string;
  warning: boolean;
  /** An approval waits: clicking the item shows it (else it opens the trace). */
  approval: boolean;
}

/** An approval the server asked (`harness/approve`), until answered. */
export interface Waiting {
  runId: number;
  callId: string;
  act: string;
  target: string;
}

interface Finished {
  result: RunFinished;
  budget: Budget | undefined;
}

export class StatusModel {
  private notes: NotesCount | undefined;
  /** Active runs and their last budget (undefined until their first step ends). */
  private readonly active = new Map<number, Budget | undefined>();
  /** The run shown while several are active: the one heard from last. */
  private current: number | undefined;
  private finished: Finished | undefined;
  private readonly waiting: Waiting[] = [];
  /** Runs whose end was heard: a start (or a status) reported after it never revives one —
   * `harness/runFinished` of a fast run can arrive before `harness.run`'s answer. */
  private readonly ended = new Set<number>();

  approvalWaiting(w: Waiting): void {
    this.waiting.push(w);
  }

  approvalAnswered(runId: number, callId: string): void {
    const i = this.waiting.findIndex((w) => w.runId === runId && w.callId === callId);
    if (i >= 0) this.waiting.splice(i, 1);
  }

  /** A run this window started: it takes the item over at once. */
  runStarted(runId: number): void {
    if (this.ended.has(runId)) return;
    if (!this.active.has(runId)) this.active.set(runId, undefined);
    this.current = runId;
    this.finished = undefined;
  }

  budget(b: Budget): void {
    if (this.ended.has(b.runId)) return;
    this.active.set(b.runId, b);
    this.current = b.runId;
    this.finished = undefined;
  }

  runFinished(f: RunFinished): void {
    const last =
      this.active.get(f.runId) ?? (this.finished?.result.runId === f.runId ? this.finished.budget : undefined);
    this.active.delete(f.runId);
    this.ended.add(f.runId);
    if (this.current === f.runId) this.current = this.latestActive();
    if (this.current === undefined) {
      this.finished = { result: f, budget: last && { ...last, spentTokens: f.spentTokens } };
    }
  }

  /** A new server process: runs the window saw active belonged to the one before. */
  serverStarted(): void {
    this.active.clear();
    this.ended.clear(); // a new store may number runs from 1 again
    this.current = undefined;
  }

  /** `harness.status`: the notes count, and runs already in progress (a window opened mid-run). */
  status(s: Status): void {
    const ws = s.memory.workspace;
    const global = s.memory.global;
    this.notes = {
      workspace: ws ? ws.entries : null,
      global: global ? global.entries : 0,
      maxEntries: ws?.maxEntries ?? global?.maxEntries,
    };
    for (const run of s.runs) {
      if (this.ended.has(run.runId)) continue;
      if (!this.active.has(run.runId) || this.active.get(run.runId) === undefined) {
        this.active.set(run.runId, run.lastBudget ?? budgetOf(run));
        this.current ??= run.runId;
        this.finished = undefined;
      }
    }
  }

  activeRuns(): number[] {
    return [...this.active.keys()];
  }

  /** The run the item is about: the active one shown, else the one that just finished. */
  shownRun(): number | undefined {
    return this.current ?? this.finished?.result.runId;
  }

  view(): StatusView {
    const ask = this.waiting[0];
    if (ask !== undefined) {
      const more = this.waiting.length > 1 ? ` (+${this.waiting.length - 1})` : "";
      return {
        text: `$(bell) approval waiting · ${plainText(oneLine(`${ask.act} ${ask.target}`, 48))}${more}`,
        tooltip: `Harness run ${ask.runId} waits for your answer: ${plainText(oneLine(`${ask.act} ${ask.target}`, 300))}.\nClick to answer it in the Harness panel.`,
        warning: true,
        approval: true,
      };
    }
    return { ...this.runView(), approval: false };
  }

  private runView(): Omit<StatusView, "approval"> {
    if (this.current !== undefined) {
      const b = this.active.get(this.current);
      if (b === undefined) {
        return {
          text: `${ICON} run ${this.current} · starting`,
          tooltip: `Harness run ${this.current} is starting.\nClick to open the trace.`,
          warning: false,
        };
      }
      return { text: budgetText(b), tooltip: budgetTooltip(b), warning: isWarning(b) };
    }
    if (this.finished !== undefined) {
      const { result, budget } = this.finished;
      if (budget !== undefined) {
        return {
          text: budgetText(budget, result.outcome),
          tooltip: budgetTooltip(budget, result.outcome),
          warning: isWarning(budget),
        };
      }
      return {
        text: `${ICON} run ${result.runId} · ${result.outcome.replace(/_/g, " ")}`,
        tooltip: `Harness run ${result.runId}: ${plainText(result.outcome)}, ${result.steps} steps.\nClick to open the trace.`,
        warning: false,
      };
    }
    return { text: idleText(this.notes), tooltip: idleTooltip(this.notes), warning: false };
  }

  private latestActive(): number | undefined {
    const ids = [...this.active.keys()];
    return ids.length ? ids[ids.length - 1] : undefined;
  }
}

/** A budget for a run reported by `harness.status` before its first step ended. */
function budgetOf(run: ActiveRunStatus): Budget | undefined {
  if (run.step <= 0) return undefined;
  return {
    runId: run.runId,
    step: run.step,
    maxSteps: run.maxSteps,
    spentTokens: run.spentTokens,
    tokenBudget: run.tokenBudget,
    requestTokens: 0,
    contextCeiling: 0,
  };
}
