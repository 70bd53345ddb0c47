/**
 * The agent's changes marked in the editor itself (issue 36, SPEC §11 review): for the
 * conversation last run in this window, each pending hunk of `harness.run.changes` gets a
 * gutter mark on its lines (in a file's editor and in the Changes diff, whose right side is
 * the file) and CodeLenses "✓ Keep · ↶ Undo", the file "Keep all · Undo all…" on its first
 * line. The placement is hunkModel.ts's; the acts are hunkCommands.ts's.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { HarnessClient } from "./client";
import { message } from "./client";
import { fileFolders } from "./folders";
import { lenses, marks, placeHunks, type Hunk, type PlacedHunk } from "./hunkModel";
import { Cmd } from "./protocol";

/** One file of `harness.run.changes` as review reads it. */
export interface ReviewFile {
  path: string;
  status: string;
  hunks?: Hunk[];
  toReview?: number;
}

/** The panel keeps its open conversation under this key (panel.ts). */
const OPEN_KEY = "harness.openConversation";

export class HunkReview implements vscode.CodeLensProvider {
  conversationId: number | undefined;
  private files = new Map<string, ReviewFile>();
  private readonly lensEvents = new vscode.EventEmitter<void>();
  /** Documents that were given lenses: a change of one asks VS Code for them again. */
  private readonly lensed = new Set<string>();
  readonly onDidChangeCodeLenses = this.lensEvents.event;
  private readonly added: vscode.TextEditorDecorationType;
  private readonly removed: vscode.TextEditorDecorationType;

  constructor(
    private readonly client: HarnessClient,
    private readonly state: vscode.Memento,
    extensionUri: vscode.Uri,
  ) {
    this.added = vscode.window.createTextEditorDecorationType({
      gutterIconPath: vscode.Uri.joinPath(extensionUri, "media", "hunk-added.svg"),
      gutterIconSize: "contain",
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
      overviewRulerColor: new vscode.ThemeColor("editorGutter.addedBackground"),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
    this.removed = vscode.window.createTextEditorDecorationType({
      gutterIconPath: vscode.Uri.joinPath(extensionUri, "media", "hunk-removed.svg"),
      gutterIconSize: "contain",
      overviewRulerColor: new vscode.ThemeColor("editorGutter.deletedBackground"),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
  }

  wire(): vscode.Disposable[] {
    return [
      this.added,
      this.removed,
      this.lensEvents,
      vscode.languages.registerCodeLensProvider({ scheme: "file" }, this),
      this.client.onRunFinished((f) => void this.show(f.conversationId ?? f.runId)),
      this.client.onReady(() => void this.show(this.conversationId ?? this.state.get<number>(OPEN_KEY))),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorateAll()),
      vscode.workspace.onDidChangeTextDocument((e) => this.changed(e.document)),
    ];
  }

  /** Review `conversationId`'s changes (the panel may call this when it opens one). */
  async show(conversationId: number | undefined): Promise<void> {
    this.conversationId = conversationId;
    await this.refresh();
  }

  /** The server's hunks again (after a run, a keep, an undo). */
  async refresh(): Promise<void> {
    const files = new Map<string, ReviewFile>();
    if (this.conversationId !== undefined) {
      try {
        const list = await this.client.command<ReviewFile[]>(Cmd.changes, { conversationId: this.conversationId });
        for (const f of list) files.set(f.path, f);
      } catch (error) {
        this.client.log(`review: harness.run.changes: ${message(error)}`);
      }
    }
    this.files = files;
    this.decorateAll();
    this.lensEvents.fire();
  }

  /** The workspace-relative path the server names `uri` by, when it is under a folder. */
  pathOf(uri: vscode.Uri): string | undefined {
    if (uri.scheme !== "file") return undefined;
    for (const folder of fileFolders()) {
      const rel = path.relative(folder.uri.fsPath, uri.fsPath);
      if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel.split(path.sep).join("/");
    }
    return undefined;
  }

  file(relPath: string): ReviewFile | undefined {
    return this.files.get(relPath);
  }

  paths(): string[] {
    return [...this.files.keys()];
  }

  /** Pending hunks still to review in the whole conversation. */
  pending(): number {
    let n = 0;
    for (const f of this.files.values()) n += (f.hunks ?? []).filter((h) => h.state === "pending").length;
    return n;
  }

  /** The pending hunks of `doc` as they sit in it now. */
  placed(doc: vscode.TextDocument): PlacedHunk[] {
    const rel = this.pathOf(doc.uri);
    const file = rel === undefined ? undefined : this.files.get(rel);
    if (!file?.hunks?.length) return [];
    return placeHunks(file.hunks, doc.getText());
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const rel = this.pathOf(doc.uri);
    if (rel === undefined) return [];
    const found = lenses(rel, this.placed(doc));
    if (found.length) this.lensed.add(doc.uri.toString());
    else this.lensed.delete(doc.uri.toString());
    return found.map(
      (l) =>
        new vscode.CodeLens(new vscode.Range(l.line, 0, l.line, 0), {
          title: l.title,
          command: l.command,
          arguments: l.args,
        }),
    );
  }

  private changed(doc: vscode.TextDocument): void {
    if (this.lensed.has(doc.uri.toString())) this.lensEvents.fire();
    if (this.files.size === 0) return;
    for (const editor of vscode.window.visibleTextEditors) if (editor.document === doc) this.decorate(editor);
  }

  private decorateAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.decorate(editor);
  }

  private decorate(editor: vscode.TextEditor): void {
    const m = marks(this.placed(editor.document), editor.document.lineCount);
    const ranges = (lines: number[]): vscode.Range[] => lines.map((l) => new vscode.Range(l, 0, l, 0));
    editor.setDecorations(this.added, ranges(m.added));
    editor.setDecorations(this.removed, ranges(m.removed));
  }
}
