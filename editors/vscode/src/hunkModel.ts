/**
 * Where the agent's hunks are in a file as it is now (issue 36: review in the editor): the
 * pending hunks of `harness.run.changes` placed on the document's lines, and what the editor
 * draws for them — a gutter mark per changed line, a CodeLens "Keep · Undo" above each hunk,
 * "Keep all · Undo all" at the top of the file. Pure: no `vscode`, unit-tested.
 *
 * A hunk's numbers are of the agent's last write (docs/server.md, "Review, hunk by hunk");
 * the file may have moved since (an earlier hunk undone, the user's edits). A hunk is looked
 * for where its lines should be now, then at the nearest place its lines are; a hunk whose
 * lines are nowhere is not drawn (the server would refuse its undo: changed since).
 */

/** One hunk of a file of `harness.run.changes` (1-based lines, texts with their newlines). */
export interface Hunk {
  id: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  before: string;
  after: string;
  /** pending, kept or undone. */
  state: string;
}

/** A pending hunk on the document: `line` (0-based) is its first line now, `lines` how many
 * of the agent's lines it holds there (0: a deletion, marked on `line`). */
export interface PlacedHunk {
  id: string;
  line: number;
  lines: number;
  removed: number;
  before: string;
  after: string;
}

/** "a\nb\n" → ["a", "b"]; "a\nb" → ["a", "b"]; "" → []. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function matchesAt(doc: readonly string[], block: readonly string[], at: number): boolean {
  if (at < 0 || at + block.length > doc.length) return false;
  return block.every((line, i) => doc[at + i] === line);
}

/** The start of `block` in `doc` nearest `expected`, or -1. */
export function nearestMatch(doc: readonly string[], block: readonly string[], expected: number): number {
  for (let d = 0; d <= doc.length; d++) {
    if (matchesAt(doc, block, expected - d)) return expected - d;
    if (d > 0 && matchesAt(doc, block, expected + d)) return expected + d;
  }
  return -1;
}

/** The pending hunks of a file placed on `current` (its text now), top to bottom. */
export function placeHunks(hunks: readonly Hunk[], current: string): PlacedHunk[] {
  const doc = splitLines(current);
  const placed: PlacedHunk[] = [];
  let drift = 0; // lines the file moved by above the next hunk (undos, the user's edits)
  for (const h of [...hunks].sort((a, b) => a.newStart - b.newStart)) {
    const expected = h.newStart - 1 + drift;
    if (h.state === "undone") {
      drift += h.oldLines - h.newLines;
      continue;
    }
    const block = splitLines(h.after);
    const at = block.length === 0 ? Math.min(Math.max(expected, 0), doc.length) : nearestMatch(doc, block, expected);
    if (at < 0) continue;
    drift = at - (h.newStart - 1);
    if (h.state !== "pending") continue;
    placed.push({ id: h.id, line: at, lines: block.length, removed: h.oldLines, before: h.before, after: h.after });
  }
  return placed;
}

/** The 0-based lines to mark: `added` for the agent's lines, `removed` where it only deleted. */
export interface Marks {
  added: number[];
  removed: number[];
}

export function marks(placed: readonly PlacedHunk[], lineCount: number): Marks {
  const added: number[] = [];
  const removed: number[] = [];
  for (const p of placed) {
    if (p.lines === 0) removed.push(Math.min(p.line, Math.max(lineCount - 1, 0)));
    for (let i = 0; i < p.lines; i++) added.push(p.line + i);
  }
  return { added, removed };
}

/** Review commands of the extension (registered in hunkReview.ts). */
export const ReviewCmd = {
  keepHunk: "harness.review.keepHunk",
  undoHunk: "harness.review.undoHunk",
  keepFile: "harness.review.keepFile",
  undoFile: "harness.review.undoFile",
  keepAll: "harness.review.keepAll",
  undoAll: "harness.review.undoAll",
} as const;

/** One CodeLens: on `line` (0-based), `title`, running `command` with `args`. */
export interface Lens {
  line: number;
  title: string;
  command: string;
  args: unknown[];
}

function hunkWords(p: PlacedHunk): string {
  if (p.lines === 0) return `removed ${p.removed} line${p.removed === 1 ? "" : "s"}`;
  if (p.removed === 0) return `added ${p.lines} line${p.lines === 1 ? "" : "s"}`;
  if (p.removed === p.lines) return `changed ${p.lines} line${p.lines === 1 ? "" : "s"}`;
  return `changed ${p.removed} → ${p.lines} lines`;
}

/** The CodeLenses of a file (`path`, workspace-relative): the file's line first, then each hunk's. */
export function lenses(path: string, placed: readonly PlacedHunk[]): Lens[] {
  if (placed.length === 0) return [];
  const n = placed.length;
  const out: Lens[] = [
    {
      line: 0,
      title: `Harness: ${n} change${n === 1 ? "" : "s"} to review — Keep all`,
      command: ReviewCmd.keepFile,
      args: [path],
    },
    { line: 0, title: "Undo all…", command: ReviewCmd.undoFile, args: [path] },
  ];
  for (const p of placed) {
    out.push({ line: p.line, title: `✓ Keep (${hunkWords(p)})`, command: ReviewCmd.keepHunk, args: [path, p.id] });
    out.push({ line: p.line, title: "↶ Undo", command: ReviewCmd.undoHunk, args: [path, p.id] });
  }
  return out;
}

/** The pending hunk on `line` (0-based), for a code action or a command without arguments. */
export function hunkAt(placed: readonly PlacedHunk[], line: number): PlacedHunk | undefined {
  return placed.find((p) => line >= p.line && line < p.line + Math.max(p.lines, 1));
}

/** One file of a revert's result (`harness.run.revert`). */
export interface RevertFile {
  path: string;
  action: string;
  reason?: string | null;
}

/** The `diagnostics` of an undo's result (docs/server.md, "What an undo broke"). */
export interface RevertDiagnostics {
  diagnostics?: { path?: string; line?: number; message?: string }[] | null;
  diagnosticsReason?: string | null;
}

/** `harness.run.revert` of a conversation: one result per run, newest first (or, from a
 * server that reverts it as one, the files at the top). */
export interface ConversationRevert extends RevertDiagnostics {
  files?: RevertFile[];
  runs?: ({ files: RevertFile[] } & RevertDiagnostics)[];
}

/** Each file's last word (the runs come newest first, so the last result that did something
 * is the one that put the file back as before the conversation) and the runs' diagnostics. */
export function flattenRevert(r: ConversationRevert): { files: RevertFile[]; diagnostics: RevertDiagnostics } {
  const runs = r.runs ?? [];
  const byPath = new Map<string, RevertFile>();
  for (const f of [...(r.files ?? []), ...runs.flatMap((run) => run.files)]) {
    const seen = byPath.get(f.path);
    if (!seen || f.action !== "unchanged") byPath.set(f.path, f);
  }
  const lists = [r, ...runs].map((x) => x.diagnostics).filter((d) => Array.isArray(d));
  const diagnostics = lists.length ? { diagnostics: lists.flat() } : { diagnostics: null };
  return { files: [...byPath.values()], diagnostics };
}
