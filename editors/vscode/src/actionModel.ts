/**
 * The pure half of the code actions (issue 36): a range's label as the chip shows it, the
 * goal "Fix with Harness" proposes, which of the language server's actions VS Code drops.
 * No `vscode`: unit-tested.
 */

export interface Position {
  line: number;
  character: number;
}

/** "calc.py:5" for one line, "calc.py:4–6" for lines 4 to 6 (a range ending at a line's
 * start does not hold that line). Pure. */
export function rangeLabel(name: string, range: { start: Position; end: Position }): string {
  const first = range.start.line + 1;
  let last = range.end.line + 1;
  if (range.end.line > range.start.line && range.end.character === 0) last -= 1;
  return last > first ? `${name}:${first}–${last}` : `${name}:${first}`;
}

/** The goal "Fix with Harness" puts in the box: the problem in the editor's words. */
export function fixGoal(label: string, d: { message: string; source?: string }): string {
  const source = d.source ? ` (${d.source})` : "";
  return `Fix the problem at ${label}: ${d.message}${source}`;
}

/** A server action the extension already offers itself. Pure. */
export function isServerHarnessAction(a: { title: string; command?: unknown }): boolean {
  if (a.title.startsWith("Harness:")) return true;
  const cmd = a.command;
  const id =
    typeof cmd === "string"
      ? cmd
      : typeof cmd === "object" && cmd !== null
        ? (cmd as { command?: unknown }).command
        : undefined;
  return id === "harness.codeAction";
}
