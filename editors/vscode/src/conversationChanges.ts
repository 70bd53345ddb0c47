/**
 * What a conversation changed, for the panel's Changes list (SPEC §11): `harness.run.changes`
 * and `harness.run.revertFile` / `harness.run.revert` by `conversationId`, or — on a server
 * that takes only `runId` there — the same built from each run of the conversation (a file's
 * text before the first run that touched it; put back by undoing the runs newest first).
 */
import { message, type HarnessClient } from "./client";
import { mergeChanges } from "./conversation";
import { Cmd, type FileChange } from "./protocol";

interface FileRevertResult {
  action?: string;
  reason?: string | null;
}

function byRunOnly(error: unknown): boolean {
  return message(error).includes("conversationId");
}

export class ConversationChanges {
  /** Files put back through the per-run fallback since the conversation's last run: a
   * run's own list still shows them (its "before" is not the conversation's). */
  private readonly putBack = new Set<string>();

  constructor(private readonly client: HarnessClient) {}

  /** A new run of the conversation ended: what it wrote is listed again. */
  forget(conversationId: number): void {
    for (const key of [...this.putBack]) if (key.startsWith(`${conversationId}:`)) this.putBack.delete(key);
  }

  async list(conversationId: number, runs: readonly number[]): Promise<FileChange[]> {
    try {
      return await this.client.command<FileChange[]>(Cmd.changes, { conversationId });
    } catch (error) {
      if (!byRunOnly(error)) throw error;
    }
    const perRun = [];
    for (const runId of runs) perRun.push(await this.client.command<FileChange[]>(Cmd.changes, { runId }));
    return mergeChanges(perRun).filter((c) => !this.putBack.has(`${conversationId}:${c.path}`));
  }

  /** The file put back; the first refusal (with its reason) when one run's write was changed since. */
  async revertFile(
    conversationId: number,
    runs: readonly number[],
    path: string,
    force: boolean,
  ): Promise<FileRevertResult> {
    const extra = { path, ...(force ? { force } : {}) };
    try {
      return await this.client.command<FileRevertResult>(Cmd.revertFile, { conversationId, ...extra });
    } catch (error) {
      if (!byRunOnly(error)) throw error;
    }
    let last: FileRevertResult = { action: "unchanged" };
    for (const runId of [...runs].reverse()) {
      const touched = (await this.client.command<FileChange[]>(Cmd.changes, { runId })).some((c) => c.path === path);
      if (!touched) continue;
      last = await this.client.command<FileRevertResult>(Cmd.revertFile, { runId, ...extra });
      if (last.action === "refused") return last;
    }
    this.putBack.add(`${conversationId}:${path}`);
    return last;
  }

  async revertAll(conversationId: number, runs: readonly number[], paths: readonly string[]): Promise<void> {
    try {
      await this.client.command(Cmd.revert, { conversationId });
      return;
    } catch (error) {
      if (!byRunOnly(error)) throw error;
    }
    for (const runId of [...runs].reverse()) await this.client.command(Cmd.revert, { runId });
    for (const path of paths) this.putBack.add(`${conversationId}:${path}`);
  }
}
