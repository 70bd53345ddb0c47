/**
 * Text that came from the model or the repository, made plain for the places VS Code shows
 * it (SPEC §6.3: Markdown escaped, no link live, no `command:` URI made from it). Pure, no
 * `vscode` import, unit-tested with hostile strings.
 *
 * What each surface interprets, in VS Code 1.100 (read from its workbench source):
 * - notifications — `show*Message`, the server's `window/showMessage` and
 *   `window/showMessageRequest`, progress titles and messages — render no Markdown but one
 *   construct: `[label](href)` with an `https:`, `http:`, `command:` or `file:` href becomes a
 *   live link showing only `label`. Every other character, a backslash included, is shown
 *   as it is, so a backslash escape would show the user a command with backslashes it does
 *   not have. The link is broken instead by a WORD JOINER (U+2060, invisible) between its
 *   `]` and `(`: the text on screen is the text given, and nothing in it is a link.
 * - quick pick labels, descriptions and details render `$(name)` as an icon: `\$(` shows the
 *   characters (`pickText`).
 * - a Markdown renderer (a `MarkdownString`, a Markdown preview) needs backslash escapes of
 *   every character Markdown or HTML gives a meaning to, and no scheme left as a URI
 *   (`markdownText`).
 *
 * On every surface control and formatting characters (ESC, U+202E RIGHT-TO-LEFT OVERRIDE,
 * zero-width ones) are written out as `\x1b` / `\u202e`, and a newline as `⏎` (a `⏎` the
 * text holds is written `\u23ce`), as the server's approvals do (`harness.policy.approval`).
 */

export const WORD_JOINER = "\u2060";
export const NEWLINE_MARK = "⏎";

/** Control (Cc), format (Cf) and line/paragraph separators: never shown raw. */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

function escaped(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\U${code.toString(16).padStart(8, "0")}`;
}

/** Every character visible: control and formatting ones escaped, newlines as `⏎`. */
export function visibleText(text: string): string {
  let out = "";
  for (const ch of text.replace(/\r\n/g, "\n")) {
    if (ch === "\n") out += NEWLINE_MARK;
    else if (ch === NEWLINE_MARK) out += "\\u23ce";
    else out += INVISIBLE.test(ch) ? escaped(ch) : ch;
  }
  return out;
}

/** For notifications, message requests, progress, dialogs and tooltips: shown exactly as
 * given (escapes aside), with no `[label](href)` left that VS Code would make a link. */
export function plainText(text: string): string {
  return visibleText(text).replace(/\]\(/g, `]${WORD_JOINER}(`);
}

/** For quick pick rows: plain text with `$(icon)` shown as written. */
export function pickText(text: string): string {
  return plainText(text).replace(/\$\(/g, "\\$(");
}

/** Markdown's and HTML's special characters, each escaped with a backslash. */
const MARKDOWN_SPECIAL = /[\\`*_{}[\]()<>#+\-.!|~&$"':=]/g;

/** For a Markdown renderer: every special character backslash-escaped, and no `scheme:`
 * left that an autolinker would take for a URI (its colon is escaped too). */
export function markdownText(text: string): string {
  return visibleText(text).replace(MARKDOWN_SPECIAL, (c) => `\\${c}`);
}
