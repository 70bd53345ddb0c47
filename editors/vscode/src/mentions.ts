/**
 * The prompt box's `@` mentions and `/` commands (issue 36), as text: which mention the
 * caret is in, which `/` command a prompt is, the exact line range a chip names, and the
 * prompt list of `harness.prompts` as the box offers it (source and argument hint shown).
 * Pure, unit-tested; the webview and the extension both use it.
 */

export interface MentionAt {
  /** Where the `@` is. */
  start: number;
  /** What follows it, up to the caret. */
  query: string;
}

/** The `@word` the caret ends (`@` at the start or after whitespace), if any. */
export function mentionAt(text: string, caret: number): MentionAt | undefined {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  if (!m) return undefined;
  return { start: m.index + m[1].length, query: m[2] };
}

/** The text with the mention (up to the caret) replaced by `@name ` (the chip's name, so
 * the sent words still say what was pointed at); the caret after it. */
export function replaceMention(
  text: string,
  at: MentionAt,
  caret: number,
  name: string,
): { text: string; caret: number } {
  const insert = `@${name.replace(/^@/, "").replace(/\s+/g, " ").trim()} `;
  const rest = text.slice(caret).replace(/^ /, "");
  return { text: text.slice(0, at.start) + insert + rest, caret: at.start + insert.length };
}

/** The `/name` being typed: the whole box is `/` and a name so far. */
export function slashAt(text: string, caret: number): string | undefined {
  const m = /^\/([A-Za-z0-9_.-]*)$/.exec(text.slice(0, caret));
  return m && caret === text.length ? m[1] : undefined;
}

export interface Slash {
  name: string;
  /** What follows the name (the prompt's `$ARGUMENTS`), trimmed; "" when none. */
  args: string;
}

/** `/fix the cart` → {name: "fix", args: "the cart"}; not a command → undefined. */
export function parseSlash(text: string): Slash | undefined {
  const m = /^\/([A-Za-z0-9][A-Za-z0-9_.-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1], args: (m[2] ?? "").trim() } : undefined;
}

export interface Pos {
  line: number;
  character: number;
}

/** The lines a selection covers, 1-based: a selection ending at the start of a line does not
 * cover that line (lines 4–6 selected to the start of line 7 are 4–6, not 4-7). */
export function selectedLines(start: Pos, end: Pos): [number, number] {
  const last = end.line > start.line && end.character === 0 ? end.line - 1 : end.line;
  return [start.line + 1, last + 1];
}

/** `cart.py:4–6`, `cart.py:4`, `cart.py`. */
export function chipLabel(path: string, lines?: [number, number]): string {
  if (!lines) return path;
  return lines[0] === lines[1] ? `${path}:${lines[0]}` : `${path}:${lines[0]}–${lines[1]}`;
}

/** One entry of `harness.prompts`. */
export interface PromptEntry {
  name: string;
  /** "builtin", "user" or "repository" (a newer server may add one). */
  source: string;
  description?: string | null;
  argumentHint?: string | null;
  path?: string | null;
  error?: string | null;
}

export interface PromptItem {
  name: string;
  /** "built-in", "yours · ~/.config/harness/prompts/x.md", "repository · .github/prompts/x.prompt.md" */
  source: string;
  hint: string;
  description: string;
  /** Why it cannot be run (too big, not UTF-8), when so. */
  error?: string;
}

const SOURCES: Record<string, string> = { builtin: "built-in", user: "yours", repository: "repository" };

function item(p: PromptEntry): PromptItem {
  const where = SOURCES[p.source] ?? p.source;
  return {
    name: p.name,
    source: p.path ? `${where} · ${p.path}` : where,
    hint: p.argumentHint ?? "",
    description: p.description ?? "",
    ...(p.error ? { error: p.error } : {}),
  };
}

/** The prompts whose name starts with `query` first, then those that contain it, each group
 * in the server's order (built-ins, the user's, the repository's). */
export function promptList(prompts: readonly PromptEntry[], query: string): PromptItem[] {
  const q = query.toLowerCase();
  const starts = prompts.filter((p) => p.name.toLowerCase().startsWith(q));
  const contains = prompts.filter((p) => !p.name.toLowerCase().startsWith(q) && p.name.toLowerCase().includes(q));
  return [...starts, ...contains].map(item);
}

/** The built-ins the client carries out itself (the server refuses them as runs). */
export const CLIENT_BUILTINS = new Set(["new", "undo", "cost", "memory", "help"]);
