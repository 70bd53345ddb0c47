/**
 * Keep and Undo from the editor (issue 36): one hunk (`harness.run.keep` / `revertHunk`),
 * a file (keep its hunks / `revertFile`, asked first) and the whole conversation (keep
 * every hunk / `harness.run.revert`, asked first). An undo the server refuses because the
 * lines changed since is offered again with `force`; after any undo, what it broke is said
 * (undoReport.ts).
 */
import * as vscode from "vscode";
import { message, type HarnessClient } from "./client";
import { guarded } from "./errors";
import { fileFolders } from "./folders";
import { flattenRevert, hunkAt, ReviewCmd, type ConversationRevert } from "./hunkModel";
import type { HunkReview } from "./hunkReview";
import { fileList, plural } from "./format";
import { plainText } from "./plainText";
import { Cmd } from "./protocol";
import { askUndoFile, filesWords, reportUndo, snapshot, type UndoDiagnostics } from "./undoReport";

/** The server's Conflict (-32009): refused, nothing written, the reason in the message. */
const CONFLICT = -32009;

interface FileRevert extends UndoDiagnostics {
  action?: string;
  reason?: string | null;
}

function conflict(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === CONFLICT;
}

export class HunkCommands {
  private readonly acted = new vscode.EventEmitter<void>();
  /** A keep or an undo was done (the panel's Changes list follows). */
  readonly onDidAct = this.acted.event;

  constructor(
    private readonly client: HarnessClient,
    private readonly review: HunkReview,
  ) {}

  wire(): vscode.Disposable[] {
    const command = (id: string, name: string, fn: (...a: unknown[]) => Promise<unknown>): vscode.Disposable =>
      vscode.commands.registerCommand(id, guarded(this.client, name, fn));
    return [
      this.acted,
      command(ReviewCmd.keepHunk, "Keep Change", (p, id) => this.keepHunk(p, id)),
      command(ReviewCmd.undoHunk, "Undo Change", (p, id) => this.undoHunk(p, id)),
      command(ReviewCmd.keepFile, "Keep File's Changes", (p) => this.keepFile(p)),
      command(ReviewCmd.undoFile, "Undo File's Changes", (p) => this.undoFile(p)),
      command(ReviewCmd.keepAll, "Keep All Changes", () => this.keepAll()),
      command(ReviewCmd.undoAll, "Undo All Changes", () => this.undoAll()),
    ];
  }

  /** The hunks again, and the news for whoever lists changes. */
  private async done(): Promise<void> {
    await this.review.refresh();
    this.acted.fire();
  }

  private conversation(): number | undefined {
    const id = this.review.conversationId;
    if (id === undefined || this.review.paths().length === 0) {
      void vscode.window.showInformationMessage("Harness: no change of the agent to review in this window.");
      return undefined;
    }
    return id;
  }

  /** The file named, else the active editor's. */
  private pathArg(p: unknown): string | undefined {
    if (typeof p === "string") return p;
    const editor = vscode.window.activeTextEditor;
    return editor ? this.review.pathOf(editor.document.uri) : undefined;
  }

  /** The hunk named, else the one under the cursor. */
  private hunkArg(p: unknown, id: unknown): { path: string; id: string } | undefined {
    if (typeof p === "string" && typeof id === "string") return { path: p, id };
    const editor = vscode.window.activeTextEditor;
    const rel = editor && this.review.pathOf(editor.document.uri);
    const hunk = editor && hunkAt(this.review.placed(editor.document), editor.selection.active.line);
    if (!rel || !hunk) {
      void vscode.window.showInformationMessage("Harness: put the cursor on a change of the agent first.");
      return undefined;
    }
    return { path: rel, id: hunk.id };
  }

  private uri(rel: string): vscode.Uri | undefined {
    const folder = fileFolders()[0];
    return folder ? vscode.Uri.joinPath(folder.uri, ...rel.split("/")) : undefined;
  }

  private uris(paths: readonly string[]): vscode.Uri[] {
    return paths.map((p) => this.uri(p)).filter((u): u is vscode.Uri => u !== undefined);
  }

  async keepHunk(p: unknown, id: unknown): Promise<void> {
    const conversationId = this.conversation();
    const hunk = this.hunkArg(p, id);
    if (conversationId === undefined || !hunk) return;
    await this.client.command(Cmd.keep, { conversationId, path: hunk.path, hunkIds: [hunk.id] });
    await this.done();
  }

  async undoHunk(p: unknown, id: unknown, force = false): Promise<void> {
    const conversationId = this.conversation();
    const hunk = this.hunkArg(p, id);
    if (conversationId === undefined || !hunk) return;
    const uris = this.uris([hunk.path]);
    const before = snapshot(uris);
    let result: UndoDiagnostics;
    try {
      result = await this.client.command<UndoDiagnostics>(Cmd.revertHunk, {
        conversationId,
        path: hunk.path,
        hunkId: hunk.id,
        ...(force ? { force } : {}),
      });
    } catch (error) {
      if (!conflict(error) || force) throw error;
      const pick = await vscode.window.showWarningMessage(
        plainText(`Harness: that change in ${hunk.path} was not undone: ${message(error)}`),
        { modal: true, detail: "Undo it anyway? The lines from before are put where the change was." },
        "Undo Anyway",
      );
      if (pick === "Undo Anyway") await this.undoHunk(hunk.path, hunk.id, true);
      return;
    }
    await this.done();
    await reportUndo(`undid 1 change in ${hunk.path}`, uris, before, result);
  }

  async keepFile(p: unknown): Promise<void> {
    const conversationId = this.conversation();
    const rel = this.pathArg(p);
    if (conversationId === undefined || !rel) return;
    const { kept } = await this.client.command<{ kept: number }>(Cmd.keep, { conversationId, path: rel });
    await this.done();
    void vscode.window.showInformationMessage(plainText(`Harness: kept ${plural(kept, "change")} in ${rel}.`));
  }

  async undoFile(p: unknown, force = false): Promise<void> {
    const conversationId = this.conversation();
    const rel = this.pathArg(p);
    if (conversationId === undefined || !rel) return;
    if (!force && !(await askUndoFile(rel))) return;
    const uris = this.uris([rel]);
    const before = snapshot(uris);
    const args = { conversationId, path: rel, ...(force ? { force } : {}) };
    const result = await this.client.command<FileRevert>(Cmd.revertFile, args);
    if (result.action === "refused") {
      const pick = await vscode.window.showWarningMessage(
        plainText(`Harness: ${rel} was not put back: ${result.reason ?? "it changed since the agent wrote it"}.`),
        { modal: true, detail: "Overwrite it with its text before the conversation? Your changes to it are lost." },
        "Overwrite",
      );
      if (pick === "Overwrite" && !force) await this.undoFile(rel, true);
      return;
    }
    await this.done();
    await reportUndo(`put back ${rel}`, uris, before, result);
  }

  async keepAll(): Promise<void> {
    const conversationId = this.conversation();
    if (conversationId === undefined) return;
    const { kept } = await this.client.command<{ kept: number }>(Cmd.keep, { conversationId });
    await this.done();
    void vscode.window.showInformationMessage(`Harness: kept ${plural(kept, "change")} of the conversation.`);
  }

  async undoAll(): Promise<void> {
    const conversationId = this.conversation();
    if (conversationId === undefined) return;
    const paths = this.review.paths();
    const ok = await vscode.window.showWarningMessage(
      `Undo every change of this conversation (${plural(paths.length, "file")})?`,
      {
        modal: true,
        detail:
          `${plainText(fileList(paths, 20))}\n\n` +
          "Each file goes back to its text before the conversation changed it; a file the agent created is deleted.",
      },
      "Undo All",
    );
    if (ok !== "Undo All") return;
    const uris = this.uris(paths);
    const before = snapshot(uris);
    const result = flattenRevert(await this.client.command<ConversationRevert>(Cmd.revert, { conversationId }));
    await this.done();
    const left = result.files.filter((f) => f.action === "refused" || f.action === "failed");
    if (left.length) {
      const why = left.map((f) => `${f.path} (${f.reason ?? f.action})`).join("; ");
      void vscode.window.showWarningMessage(plainText(`Harness: not put back: ${why}.`));
    }
    const back = result.files.filter((f) => f.action === "restored" || f.action === "deleted").map((f) => f.path);
    if (back.length === 0) return;
    await reportUndo(`put back ${filesWords(back)}`, this.uris(back), before, result.diagnostics);
  }
}
