/**
 * One tool call's row in the panel (issue 36): what it did and how it went, readable at the
 * default sidebar width — the status mark never cut (the target gives way first), the
 * reason on its own wrapping line, the whole line as the tooltip — and, expanded, the head
 * of the result (an edit's diff, a command's output head and tail, a read's first lines,
 * the failure's text) with the rest one click away. Pure, unit-tested.
 */
import type { ToolRow, ToolStatus } from "./conversation";
import { oneLine } from "./format";
import { escapeHtml as h } from "./html";

/** Glyphs every UI font has (emoji are missing from many Linux fonts). */
const ICONS: Record<string, string> = {
  read_file: "▤",
  list_dir: "▦",
  list_files: "▦",
  find: "⌕",
  grep: "⌕",
  search: "⌕",
  edit_file: "✎",
  write_file: "✎",
  rename_symbol: "✎",
  exec: "▶",
  remember: "✱",
  verify: "✔",
};

const MARK: Record<ToolStatus, string> = {
  ok: "✓",
  refused: "✗ refused",
  denied: "✗ denied",
  failed: "✗ failed",
  waiting: "● waiting for you",
  running: "…",
};

export interface RowView {
  icon: string;
  name: string;
  target: string;
  /** ✓, ✗ refused, ● waiting for you, … */
  mark: string;
  /** Why it did not go (the mark then does not repeat its first word: "refused refused"). */
  reason: string;
  /** The whole line, for the tooltip. */
  title: string;
  /** What expanding shows: the result's head, else its one-line summary. */
  head: string;
  /** The step whose trace holds the whole result. */
  step: number;
}

/** The mark and the reason, the status word said once: "refused (builtin: .env)" is shown
 * "✗ refused (builtin: .env)", never "✗ refused refused (builtin: .env)". */
export function markAndReason(status: ToolStatus, why: string | null | undefined): [string, string] {
  const text = oneLine(why ?? "", 400).trim();
  if (!text || text === status) return [MARK[status], ""];
  if (status !== "ok" && text.startsWith(`${status} `)) return [MARK[status].split(" ")[0], text];
  return [MARK[status], text];
}

export function rowView(r: ToolRow): RowView {
  const [mark, reason] = markAndReason(r.status, r.why);
  const target = oneLine(r.target, 400);
  const line = `${r.name} ${target} ${mark}${reason ? ` ${reason}` : ""}`;
  const title = r.summary && r.summary !== line ? `${line}\n${oneLine(r.summary, 400)}` : line;
  const head = r.head?.trim() ? r.head : (r.summary ?? "");
  return { icon: ICONS[r.name] ?? "•", name: r.name, target, mark, reason, title, head, step: r.step };
}

/** The row: `<details>` whose summary never cuts the mark; `extra` (an approval card) inside. */
export function rowHtml(r: ToolRow, key: string, extra: string, open: boolean): string {
  const v = rowView(r);
  const reason = v.reason ? ` <span class="reason">${h(v.reason)}</span>` : "";
  const ids = `data-run="${r.runId}" data-step="${v.step}"`;
  const more =
    r.status === "running" || r.status === "waiting"
      ? ""
      : `<button class="link more" data-action="openResult" ${ids}>Open the whole result</button>`;
  const head = v.head ? `<pre class="result">${h(v.head)}</pre>` : "";
  return (
    `<details class="tool st-${r.status}" data-key="${h(key)}"${open ? " open" : ""}>` +
    `<summary title="${h(v.title)}"><span class="line"><span class="what"><span class="icon">${v.icon}</span> ` +
    `<span class="name">${h(v.name)}</span> <span class="target">${h(v.target)}</span></span>` +
    ` <span class="status">${v.mark}</span></span>${reason}</summary>` +
    `${extra}${head}${more}</details>`
  );
}
