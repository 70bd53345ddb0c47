/**
 * A write's approval carries a unified diff (SPEC §11); to show it in VS Code's diff editor
 * the file's text after the write is rebuilt from the text on disk and that diff. Pure.
 */

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** `before` with `diff` applied, or undefined when the diff does not fit `before` (the file
 * changed since, or the diff is a summary such as "binary file …"). */
export function applyUnifiedDiff(before: string, diff: string): string | undefined {
  const src = before === "" ? [] : before.split("\n");
  const out: string[] = [];
  let at = 0; // next line of src to copy
  let seenHunk = false;
  for (const line of diff.split("\n")) {
    const h = HUNK.exec(line);
    if (h) {
      seenHunk = true;
      const start = Math.max(0, Number(h[1]) - (h[2] === "0" ? 0 : 1));
      if (start < at || start > src.length) return undefined;
      out.push(...src.slice(at, start));
      at = start;
      continue;
    }
    if (!seenHunk || line.startsWith("\\")) continue; // headers, "\ No newline at end of file"
    const body = line.slice(1);
    if (line.startsWith("+")) out.push(body);
    else if (line.startsWith("-") || line.startsWith(" ") || line === "") {
      if (src[at] !== body) return undefined;
      if (!line.startsWith("-")) out.push(body);
      at++;
    } else return undefined;
  }
  if (!seenHunk) return undefined;
  out.push(...src.slice(at));
  return out.join("\n");
}
