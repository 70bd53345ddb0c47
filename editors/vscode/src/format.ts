/**
 * Text the extension shows: short and exact token counts, the status bar's text and tooltip,
 * the end-of-run message, memory note rows. Pure: no `vscode` import, unit-tested.
 */
import { pickText, plainText } from "./plainText";
import { OUTCOME_WORDS, type Budget, type ErrorData, type Note, type RunFinished } from "./protocol";
import { settingTitle, vscodeWords } from "./words";

const UNITS: [number, string][] = [
  [1e9, "B"],
  [1e6, "M"],
  [1e3, "k"],
];

/** 950 → "950", 9120 → "9.1k", 24000 → "24k", 48210 → "48.2k", 2000000 → "2M". */
export function short(n: number): string {
  if (!Number.isFinite(n)) return "?";
  const sign = n < 0 ? "-" : "";
  const abs = Math.abs(n);
  if (abs < 1000) return sign + String(Math.round(abs));
  for (let i = UNITS.length - 1; i >= 0; i--) {
    const [size, unit] = UNITS[i];
    const scaled = Number((abs / size).toFixed(1));
    // 999,960 rounds to "1000.0k": that is "1M".
    if (scaled < 1000 || i === 0) return sign + trimZero(scaled) + unit;
  }
  return sign + String(abs);
}

function trimZero(value: number): string {
  const text = value.toFixed(1);
  return text.endsWith(".0") ? text.slice(0, -2) : text;
}

/** 48210 → "48,210" (grouped the same way on every locale). */
export function exact(n: number): string {
  if (!Number.isFinite(n)) return "?";
  const [whole, fraction] = String(Math.round(n * 100) / 100).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction ? `${grouped}.${fraction}` : grouped;
}

/** 0.0241 → "2.4%"; 0.856 → "86%". */
export function percent(ratio: number): string {
  const p = ratio * 100;
  return p < 10 && p !== 0 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${exact(n)} ${n === 1 ? one : many}`;
}

/** Fraction of the token budget spent; past this the status bar turns to its warning colour. */
export const WARN_RATIO = 0.8;

export function spentRatio(b: Pick<Budget, "spentTokens" | "tokenBudget">): number {
  return b.tokenBudget > 0 ? b.spentTokens / b.tokenBudget : 0;
}

export function isWarning(b: Pick<Budget, "spentTokens" | "tokenBudget">): boolean {
  return spentRatio(b) > WARN_RATIO;
}

/** The cached share of the last request, when the provider reported both numbers. */
export function cachedShare(b: Pick<Budget, "reportedPromptTokens" | "cachedPromptTokens">): number | undefined {
  const reported = b.reportedPromptTokens;
  const cached = b.cachedPromptTokens;
  if (typeof reported !== "number" || typeof cached !== "number" || reported <= 0) return undefined;
  return Math.min(1, cached / reported);
}

export const ICON = "$(pulse)";

/** Status bar text for a budget: "$(pulse) 48.2k/2M · 9.1k/24k" (+ " · finished" after the run). */
export function budgetText(b: Budget, outcome?: string): string {
  const text = `${ICON} ${short(b.spentTokens)}/${short(b.tokenBudget)} · ${short(b.requestTokens)}/${short(b.contextCeiling)}`;
  return outcome ? `${text} · ${outcomeShort(outcome)}` : text;
}

/** The tooltip: exact figures, the cached share, the outcome when the run is over. */
export function budgetTooltip(b: Budget, outcome?: string): string {
  const lines = [
    `Harness run ${b.runId} · step ${b.step} of ${exact(b.maxSteps)}`,
    `Spent ${exact(b.spentTokens)} of ${exact(b.tokenBudget)} tokens (${percent(spentRatio(b))})`,
    `Last request ${exact(b.requestTokens)} tokens (estimated) against a ceiling of ${exact(b.contextCeiling)}`,
  ];
  const reported = b.reportedPromptTokens;
  if (typeof reported === "number") {
    const share = cachedShare(b);
    const cached =
      share === undefined
        ? "cached share not reported"
        : `${exact(b.cachedPromptTokens ?? 0)} cached (${percent(share)})`;
    lines.push(`Provider: ${exact(reported)} prompt tokens, ${cached}`);
  } else {
    lines.push("Provider: prompt tokens not reported");
  }
  if (typeof b.prefixChars === "number") {
    lines.push(`Shared with the previous request: ${exact(b.prefixChars)} chars`);
  }
  const vs = b.contextVsAppend;
  if (typeof vs === "number" && Number.isFinite(vs)) {
    lines.push(`Context cost so far: ${vs.toFixed(2)}× what appending every result would cost (cache-priced)`);
  }
  if (outcome) lines.push(`Outcome: ${outcomeShort(outcome)}`);
  lines.push("Click to open the trace.");
  return lines.join("\n");
}

export interface NotesCount {
  workspace: number | null;
  global: number;
  maxEntries?: number;
}

export function notesTotal(n: NotesCount): number {
  return (n.workspace ?? 0) + n.global;
}

/** Before any run: "$(pulse) harness · 3 notes". */
export function idleText(n: NotesCount | undefined): string {
  return n === undefined ? `${ICON} harness` : `${ICON} harness · ${plural(notesTotal(n), "note")}`;
}

export function idleTooltip(n: NotesCount | undefined): string {
  if (n === undefined) return "Harness: starting the language server…";
  const cap = n.maxEntries === undefined ? "" : ` (at most ${exact(n.maxEntries)})`;
  const ws = n.workspace === null ? "no workspace folder" : `${plural(n.workspace, "note")} for this workspace${cap}`;
  return `Harness: ${ws}, ${exact(n.global)} global.\nNo run yet in this window. Click to open the trace.`;
}

/** How a run ended, in words: the declaration's (server/protocol, generated). */
const OUTCOMES: Record<string, string> = OUTCOME_WORDS;

/** "step_cap_reached" → "step cap reached". */
export function outcomeShort(outcome: string): string {
  return outcome.replace(/_/g, " ");
}

export function outcomeSentence(outcome: string): string {
  return OUTCOMES[outcome] ?? `ended: ${outcomeShort(outcome)}`;
}

/** Outcomes that are the user's plain "it worked" (or their own decision). */
export function isGoodOutcome(outcome: string): boolean {
  return outcome === "success" || outcome === "finished" || outcome === "cancelled";
}

/** One line, at most `max` characters, ending in "…" when cut. */
export function oneLine(text: string, max = 200): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

export function fileList(files: readonly string[], max = 5): string {
  if (files.length <= max) return files.join(", ");
  return `${files.slice(0, max).join(", ")} and ${exact(files.length - max)} more`;
}

/**
 * The end-of-run notification's text: outcome, steps and tokens, summary, files changed.
 * The summary is the model's last words and the paths are its: plain text (`plainText`).
 */
export function runFinishedMessage(f: RunFinished): string {
  const parts = [
    `Harness run ${f.runId} ${outcomeSentence(f.outcome)} after ${plural(f.steps, "step")} and ${exact(f.spentTokens)} tokens.`,
  ];
  if (f.summary) parts.push(`“${oneLine(f.summary, 300)}”`);
  if (Array.isArray(f.filesChanged)) {
    parts.push(f.filesChanged.length ? `Changed: ${fileList(f.filesChanged)}.` : "No files changed.");
  }
  return plainText(parts.join(" "));
}

/** What a tool call touched, for a row or a column: its path, command, pattern or key. */
export function toolTarget(args: unknown): string {
  if (typeof args !== "object" || args === null) return "";
  const a = args as Record<string, unknown>;
  if (Array.isArray(a.argv)) return a.argv.map(String).join(" ");
  for (const key of ["path", "pattern", "query", "key", "url"]) {
    if (typeof a[key] === "string") return a[key];
  }
  return "";
}

/** "edit_file src/a.py", "exec python -m pytest", "finish". */
export function toolLabel(call: { name: string; arguments: unknown }): string {
  const target = toolTarget(call.arguments);
  return target ? `${call.name} ${oneLine(target, 80)}` : call.name;
}

/** "$0.0123", "$1.24": dollars, with the precision a small run needs. */
export function dollars(usd: number): string {
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  return `$${usd.toPrecision(3).replace(/\.?0+$/, "")}`;
}

/** "1 denied, 2 refused, 1 failed" — the tool calls that did not go through (or ""). */
export function callCounts(f: Pick<RunFinished, "denied" | "refused" | "failed">): string {
  const parts = [
    f.denied ? `${exact(f.denied)} denied` : "",
    f.refused ? `${exact(f.refused)} refused` : "",
    f.failed ? `${exact(f.failed)} failed` : "",
  ].filter(Boolean);
  return parts.join(", ");
}

export interface EndNotice {
  text: string;
  severity: "info" | "warning" | "error";
  /** A setting the text names ("Open Settings"). */
  setting?: string;
}

/**
 * The one notification at a run's end (SPEC §10, §11): outcome, steps, tokens and dollars,
 * the calls denied/refused/failed, summary, files. `ended` is the `data` of the server's
 * message for a run that ended on an error (`{error, detail?, setting?}`), in VS Code's words.
 */
export function endNotice(f: RunFinished, ended?: ErrorData): EndNotice {
  const cost = typeof f.costUsd === "number" ? ` (${dollars(f.costUsd)})` : "";
  const head =
    f.outcome === "provider_error" && ended !== undefined
      ? `Harness run ${f.runId} could not reach the model`
      : `Harness run ${f.runId} ${outcomeSentence(f.outcome)} after ${plural(f.steps, "step")} and ${exact(f.spentTokens)} tokens${cost}`;
  const parts: string[] = [];
  let setting: string | undefined;
  if (ended !== undefined) {
    const said = vscodeWords(ended.detail ?? ended.error ?? "", ended);
    setting = said.setting;
    const where =
      ended.setting && !said.text.includes(settingTitle(ended.setting)) ? ` (${settingTitle(ended.setting)})` : "";
    parts.push(`${head}: ${said.text}${where}.`);
  } else {
    parts.push(`${head}.`);
  }
  const counts = callCounts(f);
  if (counts) parts.push(`${counts}.`);
  if (f.summary) parts.push(`“${oneLine(f.summary, 300)}”`);
  if (Array.isArray(f.filesChanged)) {
    parts.push(f.filesChanged.length ? `Changed: ${fileList(f.filesChanged)}.` : "No files changed.");
  }
  const severity = ended !== undefined ? "error" : isGoodOutcome(f.outcome) && !counts ? "info" : "warning";
  const notice: EndNotice = { text: plainText(parts.join(" ")), severity };
  if (setting !== undefined) notice.setting = setting;
  return notice;
}

/** A memory note as a QuickPick row: label, description (kind, pin, run/step, scope), detail. */
export function noteRow(n: Note): { label: string; description: string; detail: string } {
  const origin = n.runId === null ? "operator" : n.step === null ? `run ${n.runId}` : `run ${n.runId} step ${n.step}`;
  const bits = [n.kind, ...(n.pinned ? ["pinned"] : []), origin, ...(n.scope === "global" ? ["global"] : [])];
  return {
    label: `${n.pinned ? "$(pinned)" : "$(note)"} ${pickText(n.key)}`,
    description: pickText(bits.join(" · ")),
    detail: pickText(oneLine(n.value, 240)),
  };
}
