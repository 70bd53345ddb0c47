/**
 * The panel's check per run (SPEC §11: "the panel can set `harness.verify` per run"): the
 * command line a user types split into argv, the argv shown back as a command line, which
 * argv a run gets, and the control's HTML. Pure, unit-tested.
 *
 * The argv goes to the server as it is and no shell ever runs it, so what a shell would do
 * (pipes, redirects, `;`/`&&`, variables, unquoted wildcards, comments) is refused with the
 * reason rather than passed on meaning something else. Splitting is shell-quote's (the
 * quoting rules users know from their shell, and its `quote` gives the text to prefill).
 */
import { parse, quote } from "shell-quote";
import { oneLine } from "./format";
import { escapeHtml as h } from "./html";

/** The webview message (`data-action`) of the control's click. */
export const VERIFY_ACTION = "chooseVerify";

export type Split = { argv: string[] } | { error: string };

export interface VerifyState {
  /** Chosen in this window's panel, until changed (never written to settings). */
  chosen?: readonly string[];
  /** `harness.verify` as the extension may use it (the user's value in Restricted Mode). */
  setting: readonly string[];
  /** Workspace Trust: a per-run check is TRUSTED_ONLY, like the setting. */
  trusted: boolean;
}

interface Var {
  op: "var";
  name: string;
}

const NO_SHELL = "no shell runs the check, so";

/** A command line → argv, or why it cannot be one. Blank: `[]` (no choice). */
export function splitCommand(line: string): Split {
  const open = openQuote(line);
  if (open) return { error: `A ${open} quote is not closed.` };
  const argv: string[] = [];
  for (const entry of parse(line, (name): Var => ({ op: "var", name }))) {
    if (typeof entry === "string") argv.push(entry);
    else return { error: refusal(entry) };
  }
  return { argv };
}

type Entry = Exclude<ReturnType<typeof parse<Var>>[number], string>;

function refusal(entry: Entry): string {
  if ("comment" in entry) return `\`#\`: ${NO_SHELL} # does not start a comment. Quote it ('#') to pass it as written.`;
  if (entry.op === "var") {
    const word = `$${entry.name}`;
    return `\`${word}\`: ${NO_SHELL} variables are not expanded. Write the value itself, or quote it ('${word}') to pass it as written.`;
  }
  if (entry.op === "glob") {
    return `\`${entry.pattern}\`: ${NO_SHELL} wildcards are not expanded. Quote it ('${entry.pattern}') to pass it as written.`;
  }
  return `\`${entry.op}\`: ${NO_SHELL} pipes, redirects, \`;\` and \`&&\` do nothing here. Name one program and its arguments (for a pipeline: sh -c '…').`;
}

/** "single" or "double" when the line ends inside that quote (shell-quote would close it silently). */
function openQuote(line: string): string | undefined {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
    } else if (c === "\\") {
      i++;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    }
  }
  return quote === "'" ? "single" : quote === '"' ? "double" : undefined;
}

/** argv as a command line that `splitCommand` splits back into the same argv. */
export function commandText(argv: readonly string[]): string {
  return argv.map(word).join(" ");
}

function word(arg: string): string {
  // shell-quote escapes a wildcard with a backslash, which its own parse reads as a wildcard.
  if (!/[*?]/.test(arg)) return quote([arg]);
  return arg.includes("'") ? `"${arg.replace(/["\\$`]/g, "\\$&")}"` : `'${arg}'`;
}

/** The argv the next run the panel starts checks with (`[]`: no check). */
export function runVerify(s: VerifyState): readonly string[] {
  return s.trusted && s.chosen?.length ? s.chosen : s.setting;
}

const RESTRICTED =
  "Restricted Mode: the check comes from your user setting harness.verify only. " +
  "Trust this workspace to choose one for this window's runs.";

/** The control in the prompt area: "Verify: pytest -q", "Verify (this window): make check",
 * or "Verify: no check" (the marker first: a long command is cut at the end). */
export function verifyHtml(s: VerifyState): string {
  const argv = runVerify(s);
  const text = argv.length ? commandText(argv) : "no check";
  const mine = s.trusted && Boolean(s.chosen?.length);
  const said = argv.length
    ? `The check the next run uses when the model says it is done: ${text}`
    : "No check runs when the model says it is done";
  let title: string;
  if (!s.trusted) title = RESTRICTED;
  else if (mine) {
    title = `${said} (chosen for this window's runs, not saved in settings). Click to change it; an empty command goes back to the setting.`;
  } else {
    title = `${said} (the harness.verify setting). Click to choose one for this window's runs.`;
  }
  const off = s.trusted ? "" : ` disabled aria-disabled="true"`;
  const where = mine ? ` <span class="muted">(this window)</span>` : "";
  return (
    `<button class="link verify" data-action="${VERIFY_ACTION}" title="${h(title)}"${off}>` +
    `Verify${where}: ${h(oneLine(text, 80))}</button>`
  );
}
