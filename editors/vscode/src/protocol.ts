/**
 * The server's protocol as the extension sees it (SPEC §7, §8.1; docs/server.md): method and
 * command names (generated: protocolDecl.ts), and the JSON shapes of its notifications and
 * command results.
 *
 * Fields the server adds over time (`cachedPromptTokens`, `prefixChars`, `summary`,
 * `filesChanged`, `refused`, `failed`, `said`) are optional here: an older server does not
 * send them, and everything that shows them copes with their absence.
 */

// The names (commands, notifications, requests, the verification's call id), the words of
// outcomes and decisions, error kinds and `data`, and the params interfaces are generated
// from the server's declaration (server/protocol, `make protocol`).
export * from "./protocolDecl";

/**
 * A run's outcome: success, finished, step_cap_reached, budget_exhausted, cancelled,
 * context_overflow, provider_error, verification_failed, interrupted — or one a newer server
 * adds, which is shown as it comes.
 */
export type Outcome = string;

/** `harness/budget`, after every step. */
export interface Budget {
  runId: number;
  step: number;
  maxSteps: number;
  spentTokens: number;
  tokenBudget: number;
  requestTokens: number;
  contextCeiling: number;
  reportedPromptTokens?: number | null;
  cachedPromptTokens?: number | null;
  prefixChars?: number | null;
  costUsd?: number | null;
  cachedCostUsd?: number | null;
  /** The run's requests so far, priced on a prefix cache, over appending every result whole (issue 34). */
  contextVsAppend?: number | null;
}

/** `harness/runFinished`, and the run object of §8.1. */
export interface RunFinished {
  runId: number;
  outcome: Outcome;
  steps: number;
  spentTokens: number;
  summary?: string | null;
  filesChanged?: string[] | null;
  conversationId?: number | null;
  costUsd?: number | null;
  refused?: number | null;
  denied?: number | null;
  failed?: number | null;
}

export interface ActiveRunStatus {
  runId: number;
  goal: string;
  workspace: string;
  step: number;
  maxSteps: number;
  spentTokens: number;
  tokenBudget: number;
  lastBudget: Budget | null;
  awaitingApproval?: boolean;
}

export interface MemoryUsage {
  scope: string;
  entries: number;
  chars: number;
  pinned: number;
  maxEntries: number;
  maxChars: number;
}

/** `harness.status`. */
export interface Status {
  runs: ActiveRunStatus[];
  lastBudget: Budget | null;
  memory: { workspace: MemoryUsage | null; global: MemoryUsage | null };
  storePath?: string;
}

export type Scope = "workspace" | "global";

/** A memory note (§8.1). `runId` null: written by the operator. */
export interface Note {
  key: string;
  value: string;
  /** "fact" (the agent's) or "decision" (an operator note). */
  kind: string;
  pinned: boolean;
  scope: Scope;
  runId: number | null;
  step: number | null;
  createdAt?: string;
  updatedAt?: string;
  recalls?: number;
}

export interface MemoryWriteResult {
  note: Note;
  replaced?: boolean;
  truncated?: boolean;
  evicted?: Note[];
  similar?: { key: string; value: string; jaccard?: number }[];
}

/** One row of `harness.trace.runs`; `outcome` is null while the run is in progress. */
export interface RunSummary {
  runId: number;
  goal: string;
  workspace: string;
  outcome: string | null;
  steps: number;
  spentTokens: number;
  startedAt?: string | null;
  finishedAt?: string | null;
  summary?: string | null;
  filesChanged?: string[] | null;
}

export interface ToolCallJson {
  name: string;
  arguments: unknown;
}

/** One step of `harness.trace.run`. */
export interface TraceStepRow {
  step: number;
  decision?: string | null;
  toolCalls?: ToolCallJson[];
  estTokens: number;
  reportedPromptTokens?: number | null;
  cachedPromptTokens?: number | null;
  prefixChars?: number | null;
  contextCeiling?: number | null;
  carried?: number;
  stubbed?: number;
  reread?: number;
  recalled?: number;
  refused?: number;
  failed?: number;
  resultChars?: number;
  said?: string | null;
}

/** `harness.trace.run`. */
export interface TraceRun {
  run: RunSummary;
  steps: TraceStepRow[];
}

/** `harness.trace.step`: the full prompt as sent and the full unelided results. */
export interface StepDetail {
  runId: number;
  step: number;
  prompt: unknown;
  result: string;
  toolCalls?: ToolCallJson[];
  events?: { kind: string; detail: unknown }[];
}

export interface RevertFile {
  path: string;
  /** restored, deleted, unchanged, refused or failed. */
  action: string;
  reason?: string | null;
}

/** `harness.run.revert`. */
export interface RevertResult {
  runId: number;
  workspace: string;
  files: RevertFile[];
  restored?: number;
  deleted?: number;
  refused?: number;
  failed?: number;
}

/** `harness/approve` (SPEC §7): what is asked; answered `{decision}`. */
export interface ApproveParams {
  runId: number;
  step: number;
  callId: string;
  act: string;
  target: string;
  command?: string | null;
  diff?: string | null;
  filesWritten?: string[];
  options?: string[];
}

/** `harness/runEvent` (SPEC §11), and the items of `harness.run.events`. */
interface EventBase {
  runId: number;
  conversationId: number;
  seq: number;
  step: number;
}
export type RunEvent = EventBase &
  (
    | { kind: "user"; text: string; steer?: boolean; mode?: string }
    | { kind: "text"; delta: string }
    | { kind: "toolCall"; callId: string; name: string; arguments: unknown; target?: string | null }
    | {
        kind: "approval";
        callId: string;
        act: string;
        target: string;
        command?: string | null;
        diff?: string | null;
        decision?: string | null;
      }
    | {
        kind: "toolResult";
        callId: string;
        status: string;
        why?: string | null;
        summary?: string | null;
        /** A few lines of what the call gave (an edit's diff, an output's head and tail). */
        detail?: string | null;
      }
    | ({ kind: "budget" } & Omit<Budget, "runId">)
    | ({ kind: "end" } & Omit<RunFinished, "runId">)
  );

/** One file of `harness.run.changes`. */
export interface FileChange {
  path: string;
  /** added, modified or deleted. */
  status: string;
  before: string | null;
  after: string | null;
  runIds?: number[];
}

/** One row of `harness.conversations`. */
export interface ConversationRow {
  conversationId: number;
  goal: string;
  runs: number;
  lastOutcome: string | null;
  spentTokens: number;
  startedAt?: string | null;
  finishedAt?: string | null;
}
