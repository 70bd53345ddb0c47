/** Command handlers never throw into VS Code: a failure becomes one clear error message. */
import { message, ServerNotRunning, type HarnessClient } from "./client";
import { MessageType } from "vscode-languageclient/node";
import { notifyWith } from "./messages";
import { errorData } from "./words";

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
        await client.explainNotRunning();
        return;
      }
      // A user's mistake (a setting, a run already going) in VS Code's words.
      void notifyWith(MessageType.Error, `Harness: ${message(error)}`, errorData(error));
    }
  };
}
