/**
 * The panel's Verify control (SPEC §11): the check this window's runs use, chosen in VS Code's
 * input box — prefilled with the check the next run would use, each keystroke checked by
 * `splitCommand` (an unclosed quote or a pipe is said under the box before anything is
 * taken). Kept for the window, never written to settings; TRUSTED_ONLY like the setting.
 */
import * as vscode from "vscode";
import { verifyArg } from "./runs";
import { commandText, runVerify, splitCommand, verifyHtml, type VerifyState } from "./verifyChoice";

export class VerifyControl {
  private chosen: readonly string[] | undefined;

  private state(): VerifyState {
    return { chosen: this.chosen, setting: verifyArg().verify ?? [], trusted: vscode.workspace.isTrusted };
  }

  html(): string {
    return verifyHtml(this.state());
  }

  /** `verify` for a run the panel starts: the window's choice, else the setting. */
  arg(): { verify?: string[] } {
    const argv = runVerify(this.state());
    return argv.length ? { verify: [...argv] } : {};
  }

  /** The control's click; true when the choice changed. */
  async choose(): Promise<boolean> {
    const state = this.state();
    if (!state.trusted) return false; // the control is disabled in Restricted Mode
    const argv = await askVerify(runVerify(state));
    if (argv === undefined) return false; // Escape keeps the choice
    this.chosen = argv.length ? argv : undefined;
    return true;
  }
}

/** The argv chosen; `[]` to go back to the setting; `undefined` when the user pressed Escape. */
export async function askVerify(current: readonly string[]): Promise<string[] | undefined> {
  const line = await vscode.window.showInputBox({
    title: "Harness: Verify (this window's runs)",
    prompt:
      "The command that checks the agent's work when the model says it is done; it runs sandboxed, " +
      "without a shell. Empty: back to the harness.verify setting.",
    placeHolder: "e.g. python -m pytest -q",
    value: commandText(current),
    ignoreFocusOut: true,
    validateInput: (text) => {
      const split = splitCommand(text);
      return "error" in split ? split.error : undefined;
    },
  });
  if (line === undefined) return undefined;
  const split = splitCommand(line);
  return "argv" in split ? split.argv : undefined;
}
