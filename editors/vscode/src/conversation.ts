/**
 * A conversation as the panel draws it, built from `harness/runEvent`s (live) or
 * `harness.run.events` (after a reload): user turns, the model's words, one row per tool
 * call (with its approval and result), each run's end line, and the last budget. Pure.
 */
import { toolTarget } from "./format";
import type { Budget, FileChange, RunEvent, RunFinished } from "./protocol";

export type ToolStatus = "running" | "waiting" | "ok" | "refused" | "denied" | "failed";

export interface Approval {
  act: string;
  target: string;
  command?: string | null;
  diff?: string | null;
  decision?: string | null;
}

export interface ToolRow {
  kind: "tool";
  runId: number;
  step: number;
  callId: string;
  name: string;
  target: string;
  status: ToolStatus;
  why?: string | null;
  summary?: string | null;
  head?: string | null;
  approval?: Approval;
}

export interface UserTurn {
  kind: "user";
  runId: number;
  text: string;
  /** Words the user queued into a run in progress (`harness.run.steer`). */
  steer?: boolean;
  mode?: string;
  /** What the user attached, as the chips said it (this window's sends only). */
  attached?: string[];
}

export type Item =
  UserTurn | { kind: "text"; runId: number; step: number; text: string } | ToolRow | ({ kind: "end" } & RunFinished);

const RESULT_STATUS = new Set<string>(["ok", "refused", "denied", "failed"]);

export class Conversation {
  readonly items: Item[] = [];
  budget: Budget | undefined;
  /** The run of this conversation still going, if any. */
  running: number | undefined;
  private readonly seen = new Set<string>();
  /** Runs whose end was heard: a start reported later never makes one running again. */
  private readonly ended = new Set<number>();

  constructor(public id: number | undefined = undefined) {}

  /** Apply one event; false when it was already applied (a replay after a reload). */
  apply(e: RunEvent): boolean {
    const key = `${e.runId}:${e.seq}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if ((e as { rewound?: boolean }).rewound) return false; // restored away (a checkpoint)
    this.id ??= e.conversationId;
    this.dispatch(e);
    return true;
  }

  runs(): number[] {
    return [...new Set(this.items.map((i) => i.runId))];
  }

  private dispatch(e: RunEvent): void {
    switch (e.kind) {
      case "user":
        if (e.steer) {
          this.items.push({ kind: "user", runId: e.runId, text: e.text, steer: true });
          return;
        }
        this.userTurn(e.runId, e.text, { mode: e.mode });
        // The server's text wins over what this window drew at once (a `/prompt` expanded).
        for (const t of this.turns()) if (t.runId === e.runId) t.text = e.text;
        return;
      case "text":
        return this.words(e.runId, e.step, e.delta ?? (e as unknown as { text?: string }).text ?? "");
      case "toolCall":
        this.items.push({
          kind: "tool",
          runId: e.runId,
          step: e.step,
          callId: e.callId,
          name: e.name,
          target: e.target ?? toolTarget(e.arguments),
          status: "running",
        });
        return;
      case "approval":
        return this.approval(e);
      case "toolResult":
        return this.result(e);
      case "budget":
        this.budget = { ...e, runId: e.runId };
        if (!this.ended.has(e.runId)) this.running ??= e.runId;
        return;
      case "end": {
        const end: Record<string, unknown> = { ...e };
        for (const k of ["seq", "step", "kind"]) delete end[k];
        return this.finished(end as unknown as RunFinished);
      }
    }
  }

  /** A user turn: from the `user` event, or drawn at once when this window started the run
   * (the event that follows is then not drawn twice). */
  userTurn(runId: number, text: string, more: Pick<UserTurn, "mode" | "attached"> = {}): void {
    if (!this.ended.has(runId)) this.running = runId;
    const had = this.items.find((i): i is UserTurn => i.kind === "user" && i.runId === runId && !i.steer);
    if (had) {
      had.mode ??= more.mode;
      had.attached ??= more.attached;
      return;
    }
    this.items.push({ kind: "user", runId, text, ...definedOnly(more) });
  }

  /** The user's turns (not the steers), numbered from 1 as `harness.conversation.restore` counts. */
  turns(): UserTurn[] {
    return this.items.filter((i): i is UserTurn => i.kind === "user" && !i.steer);
  }

  /** A run's end: from the `end` event or `harness/runFinished`, whichever comes first. */
  finished(f: RunFinished): void {
    this.ended.add(f.runId);
    if (this.running === f.runId) this.running = undefined;
    if (this.budget?.runId === f.runId) {
      this.budget = { ...this.budget, spentTokens: f.spentTokens, costUsd: f.costUsd };
    }
    if (this.items.some((i) => i.kind === "end" && i.runId === f.runId)) return;
    // The model's last words, when no event brought them (a server without events).
    const said = this.items.some((i) => i.kind === "text" && i.runId === f.runId);
    if (f.summary && !said) this.items.push({ kind: "text", runId: f.runId, step: f.steps, text: f.summary });
    this.items.push({ kind: "end", ...f });
  }

  private words(runId: number, step: number, delta: string): void {
    const last = this.items[this.items.length - 1];
    if (last?.kind === "text" && last.runId === runId && last.step === step) last.text += delta;
    else this.items.push({ kind: "text", runId, step, text: delta });
  }

  row(runId: number, callId: string): ToolRow | undefined {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const it = this.items[i];
      if (it.kind === "tool" && it.runId === runId && it.callId === callId) return it;
    }
    return undefined;
  }

  private approval(e: Extract<RunEvent, { kind: "approval" }>): void {
    const row = this.row(e.runId, e.callId);
    if (row === undefined) return;
    row.approval = { act: e.act, target: e.target, command: e.command, diff: e.diff, decision: e.decision };
    if (!e.decision && row.status === "running") row.status = "waiting";
    if (e.decision && row.status === "waiting") row.status = "running";
  }

  private result(e: Extract<RunEvent, { kind: "toolResult" }>): void {
    const row = this.row(e.runId, e.callId);
    if (row === undefined) return;
    row.status = RESULT_STATUS.has(e.status) ? (e.status as ToolStatus) : "failed";
    row.why = e.why;
    row.summary = e.summary;
    row.head = e.detail;
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Each run's changes merged: the first `before`, the last `after` and status. */
export function mergeChanges(perRun: readonly (readonly FileChange[])[]): FileChange[] {
  const merged = new Map<string, FileChange>();
  for (const files of perRun) {
    for (const c of files) {
      const prev = merged.get(c.path);
      const status = prev?.status === "added" && c.status !== "deleted" ? "added" : c.status;
      merged.set(c.path, prev ? { ...c, before: prev.before, status } : c);
    }
  }
  // Put back as it was before the conversation (a revert, or a later run undoing it).
  return [...merged.values()].filter((c) => c.before !== c.after);
}
