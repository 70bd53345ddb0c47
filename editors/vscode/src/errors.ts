/** Command handlers never throw into VS Code: a failure becomes one clear error message. */
import * as vscode from "vscode";
import { message, ServerNotRunning, type HarnessClient } from "./client";
import { plainText } from "./plainText";

export function guarded<A extends unknown[]>(
  client: HarnessClient,
  name: string,
  fn: (...args: A) => Promise<unknown>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (error) {
      client.log(`${name}: ${message(error)}`);
      if (error instanceof ServerNotRunning) {
        const pick = await vscode.window.showErrorMessage(plainText(error.message), "Show Log");
        if (pick) client.output.show(true);
        return;
      }
      void vscode.window.showErrorMessage(plainText(`Harness: ${message(error)}`));
    }
  };
}
