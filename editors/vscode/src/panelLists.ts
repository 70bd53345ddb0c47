/**
 * The panel's lists and what they do (SPEC §11, issue 36): the conversation's Changes (open
 * the diff, put a file back, put all back), the workspace's History (with dates, refreshed
 * on every run event while open), and "Restore to here" on a user turn — the files it will
 * change listed before it acts (`harness.run.changes` of the turns it rewinds), then
 * `harness.conversation.restore`.
 */
import * as vscode from "vscode";
import { message, type HarnessClient } from "./client";
import { openChangeDiff, type TextsProvider } from "./changes";
import { mergeChanges, type Conversation } from "./conversation";
import { ConversationChanges } from "./conversationChanges";
import { folderArg } from "./folders";
import { changesHtml, historyHtml } from "./panelHtml";
import { Cmd, type ConversationRow, type FileChange } from "./protocol";
import { askUndoFile } from "./undoReport";

export interface ListsHost {
  conversation(): Conversation;
  folder(): vscode.WorkspaceFolder | undefined;
  post(m: Record<string, unknown>): void;
  /** Draw the open conversation again from the store (after a restore). */
  reload(): Promise<void>;
}

interface RestoreResult {
  restored: boolean;
  files: { path: string; action: string; reason?: string | null }[];
}

const MAX_LISTED = 12;

function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, MAX_LISTED).join(", ");
  return paths.length > MAX_LISTED ? `${shown} and ${paths.length - MAX_LISTED} more` : shown;
}

export class PanelLists {
  changes: FileChange[] = [];
  historyOpen = false;
  private readonly convChanges: ConversationChanges;

  constructor(
    private readonly client: HarnessClient,
    private readonly texts: TextsProvider,
    private readonly host: ListsHost,
  ) {
    this.convChanges = new ConversationChanges(client);
  }

  html(): string {
    return changesHtml(this.changes);
  }

  forget(id: number): void {
    this.convChanges.forget(id);
  }

  async loadChanges(): Promise<void> {
    const c = this.host.conversation();
    if (c.id === undefined) return;
    try {
      this.changes = await this.convChanges.list(c.id, c.runs());
    } catch (error) {
      this.client.log(`harness.run.changes: ${message(error)}`);
    }
    this.host.post({ changes: this.html() });
  }

  async diff(path: string): Promise<void> {
    const change = this.changes.find((c) => c.path === path);
    const folder = this.host.folder();
    if (!change || !folder) return;
    await openChangeDiff(this.texts, folder.uri, path, change.before);
  }

  async revertFile(path: string, force = false): Promise<void> {
    const c = this.host.conversation();
    if (c.id === undefined) return;
    if (!force && !(await askUndoFile(path))) return; // ↶ asks first (issue 36)
    const file = await this.convChanges.revertFile(c.id, c.runs(), path, force);
    if (file.action === "refused" && !force) {
      const pick = await vscode.window.showWarningMessage(
        `Harness: ${path} was not reverted: ${file.reason ?? "it changed since the agent wrote it"}. Revert it anyway?`,
        { modal: true },
        "Revert Anyway",
      );
      if (pick === "Revert Anyway") return this.revertFile(path, true);
    } else if (file.action !== "refused") {
      void vscode.window.showInformationMessage(`Harness: put back ${path}.`);
    }
    await this.loadChanges();
  }

  async revertAll(): Promise<void> {
    const pick = await vscode.window.showWarningMessage(
      `Harness: put back every file this conversation changed (${this.changes.length})?`,
      { modal: true },
      "Revert All",
    );
    if (pick !== "Revert All") return;
    const c = this.host.conversation();
    if (c.id !== undefined) {
      await this.convChanges.revertAll(
        c.id,
        c.runs(),
        this.changes.map((f) => f.path),
      );
    }
    await this.loadChanges();
  }

  /** History: while it is open, drawn again on every run event of this window. */
  async loadHistory(open?: boolean): Promise<void> {
    if (open !== undefined) this.historyOpen = open;
    if (!this.historyOpen) return;
    const folder = this.host.folder();
    const rows = await this.client.command<ConversationRow[]>(Cmd.conversations, {
      limit: 30,
      ...(folder ? { workspaceFolder: folderArg(folder) } : {}),
    });
    this.host.post({ history: historyHtml(rows, this.host.conversation().id) });
  }

  /** The files putting the conversation back to before `turn` changes (the turns it rewinds). */
  async restorePreview(turn: number): Promise<string[]> {
    const runs = this.host
      .conversation()
      .turns()
      .slice(turn - 1)
      .map((t) => t.runId);
    const perRun = [];
    for (const runId of runs) perRun.push(await this.client.command<FileChange[]>(Cmd.changes, { runId }));
    return mergeChanges(perRun).map((c) => c.path);
  }

  async restore(turn: number, force = false): Promise<void> {
    const c = this.host.conversation();
    const folder = this.host.folder();
    if (c.id === undefined || !folder || !Number.isInteger(turn) || turn < 1) return;
    if (!force) {
      const files = await this.restorePreview(turn);
      const what = files.length ? `These files go back as they were: ${listed(files)}.` : "No file changes.";
      const later = c.turns().length - turn + 1;
      const pick = await vscode.window.showWarningMessage(
        `Harness: restore the conversation to before turn ${turn}? ${what} The ${later === 1 ? "turn" : `${later} turns`} from there on are rewound (they stay in the trace).`,
        { modal: true },
        "Restore",
      );
      if (pick !== "Restore") return;
    }
    const args = { conversationId: c.id, turn, workspaceFolder: folderArg(folder), ...(force ? { force } : {}) };
    const result = await this.client.command<RestoreResult>(Cmd.restore, args);
    if (!result.restored) {
      const inWay = result.files
        .filter((f) => f.action === "refused")
        .map((f) => `${f.path} (${f.reason ?? "changed"})`);
      const pick = await vscode.window.showWarningMessage(
        `Harness: nothing was restored: ${listed(inWay)}. Restore anyway (changes on disk are overwritten; unsaved editors never)?`,
        { modal: true },
        "Restore Anyway",
      );
      if (pick === "Restore Anyway") await this.restore(turn, true);
      return;
    }
    void vscode.window.showInformationMessage(
      `Harness: restored to before turn ${turn}${result.files.length ? ` (${result.files.length} ${result.files.length === 1 ? "file" : "files"})` : ""}.`,
    );
    await this.host.reload();
  }
}
