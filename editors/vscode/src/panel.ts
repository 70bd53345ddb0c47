/**
 * The conversation panel (SPEC §11): the webview view `harness.conversation`. It keeps the
 * open conversation (drawn from `harness/runEvent`s, restored after a reload from
 * `harness.run.events`), answers `harness/approve` inline, starts runs and follow-ups from
 * its prompt box, lists the conversation's changes (diff, revert) and the workspace's
 * conversations. The HTML is built by `panelHtml` (escaped, Markdown sanitised); the
 * webview script only shows it and reports clicks.
 */
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { MessageType } from "vscode-languageclient/node";
import { message, ServerNotRunning, type HarnessClient } from "./client";
import { openChangeDiff, openProposedDiff, type TextsProvider } from "./changes";
import { Conversation } from "./conversation";
import { ConversationChanges } from "./conversationChanges";
import { fileFolders, folderArg } from "./folders";
import { notifyWith } from "./messages";
import { errorData } from "./words";
import { askKey, budgetHtml, changesHtml, conversationHtml, historyHtml, panelShell } from "./panelHtml";
import { escapeHtml } from "./html";
import { oneLine } from "./format";
import {
  Cmd,
  type ApproveParams,
  type ConversationRow,
  type Decision,
  type FileChange,
  type RunEvent,
  type RunFinished,
} from "./protocol";
import { SECTION } from "./settings";
import { askUndoFile } from "./undoReport";
import { VERIFY_ACTION } from "./verifyChoice";
import { VerifyControl } from "./verifyControl";
import type { BudgetItem } from "./statusBar";
import type { StatusModel } from "./statusModel";

export const VIEW_ID = "harness.conversation";
const OPEN_KEY = "harness.openConversation";

interface Pending {
  params: ApproveParams;
  answer: (d: Decision) => void;
}

export interface ContextRef {
  uri: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  label: string;
}

type Msg = Record<string, string | undefined> & { action?: string };

export class ConversationPanel implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private conv: Conversation;
  private readonly pending = new Map<string, Pending>();
  private changes: FileChange[] = [];
  private history: ConversationRow[] = [];
  private attached: ContextRef[] = [];
  /** A goal `attachContext` put in the box, until a prompt is sent (a webview that was not
   * loaded yet gets it on "ready"). */
  private goalDraft: string | undefined;
  /** The caret goes to the prompt box once the webview is ready (`attachContext`). */
  private focusPrompt = false;
  private renderTimer: NodeJS.Timeout | undefined;
  private readonly verify = new VerifyControl();
  private readonly convChanges: ConversationChanges;

  constructor(
    private readonly client: HarnessClient,
    private readonly model: StatusModel,
    private readonly item: BudgetItem,
    private readonly state: vscode.Memento,
    private readonly extensionUri: vscode.Uri,
    private readonly texts: TextsProvider,
  ) {
    this.conv = new Conversation(state.get<number>(OPEN_KEY));
    this.convChanges = new ConversationChanges(client);
  }

  wire(): vscode.Disposable[] {
    this.client.approver = (p) => this.ask(p);
    return [
      vscode.window.registerWebviewViewProvider(VIEW_ID, this, { webviewOptions: { retainContextWhenHidden: true } }),
      this.client.onRunEvent((e) => this.event(e)),
      this.client.onBudget((b) => {
        if (this.ours(b.runId)) {
          this.conv.budget = b;
          this.schedule();
        }
      }),
      this.client.onRunFinished((f) => void this.runFinished(f)),
      this.client.onReady(() => void this.restore()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.verify`)) this.renderAll();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.renderAll()),
    ];
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    const nonce = randomBytes(16).toString("base64");
    const script = view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "panel.js")).toString();
    view.webview.html = panelShell({ nonce, cspSource: view.webview.cspSource, script });
    view.webview.onDidReceiveMessage((m: Msg) => void this.onMessage(m));
    view.onDidDispose(() => (this.view = undefined));
  }

  /** The status bar's click while an approval waits: the panel, scrolled to it. */
  async showApproval(): Promise<void> {
    await this.reveal(false);
    const first = [...this.pending.values()][0];
    if (first) this.post({ focusKey: askKey(first.params.runId, first.params.callId) });
  }

  async newConversation(): Promise<void> {
    this.conv = new Conversation();
    this.changes = [];
    await this.state.update(OPEN_KEY, undefined);
    this.renderAll();
  }

  private ours(runId: number): boolean {
    return this.conv.runs().includes(runId) || this.conv.running === runId;
  }

  private event(e: RunEvent): void {
    if (this.conv.id === undefined ? this.conv.running !== e.runId : this.conv.id !== e.conversationId) return;
    if (this.conv.apply(e)) this.schedule();
  }

  private async runFinished(f: RunFinished): Promise<void> {
    if (!this.ours(f.runId)) return;
    if (this.conv.id !== undefined) this.convChanges.forget(this.conv.id);
    this.conv.finished(f);
    this.renderAll();
    await this.loadChanges();
  }

  /** After a reload (or a server restart): the open conversation from the store. */
  private async restore(): Promise<void> {
    const id = this.conv.id;
    if (id === undefined) return;
    try {
      const events = await this.client.command<RunEvent[]>(Cmd.runEvents, { conversationId: id });
      for (const e of events) this.conv.apply(e);
    } catch (error) {
      this.client.log(`harness.run.events: ${message(error)}`);
    }
    this.renderAll();
    await this.loadChanges();
  }

  // -- approvals -----------------------------------------------------------------------

  private ask(params: ApproveParams): Promise<Decision> {
    const key = askKey(params.runId, params.callId);
    return new Promise<Decision>((resolve) => {
      this.pending.set(key, { params, answer: resolve });
      this.model.approvalWaiting({
        runId: params.runId,
        callId: params.callId,
        act: params.act,
        target: params.target,
      });
      this.item.render();
      this.renderAll();
      void this.reveal(true);
    });
  }

  private answer(run: string | undefined, call: string | undefined, decision: string | undefined): void {
    const key = askKey(Number(run), call ?? "");
    const ask = this.pending.get(key);
    if (!ask || (decision !== "allow" && decision !== "allowRun" && decision !== "deny")) return;
    this.pending.delete(key);
    this.model.approvalAnswered(ask.params.runId, ask.params.callId);
    this.item.render();
    ask.answer(decision);
    this.renderAll();
  }

  // -- drawing -------------------------------------------------------------------------

  private async reveal(preserveFocus: boolean): Promise<void> {
    if (this.view) this.view.show(preserveFocus);
    else await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  }

  private post(m: Record<string, unknown>): void {
    void this.view?.webview.postMessage({ type: "render", ...m });
  }

  /** Streaming words: at most one redraw per 50 ms. */
  private schedule(): void {
    if (this.renderTimer) return;
    this.renderTimer = setTimeout(() => {
      this.renderTimer = undefined;
      this.renderAll();
    }, 50);
  }

  private renderAll(): void {
    const asks = new Map([...this.pending].map(([k, p]) => [k, p.params]));
    const first = this.conv.items.find((i) => i.kind === "user");
    this.post({
      title: first?.kind === "user" ? oneLine(first.text, 60) : "New conversation",
      budget: budgetHtml(this.conv.budget),
      conv: conversationHtml(this.conv, asks),
      changes: changesHtml(this.changes),
      attached: this.attached.map((a) => `<span class="chip">${escapeHtml(a.label)}</span>`).join(""),
      running: this.conv.running !== undefined,
      verify: this.verify.html(),
    });
  }

  // -- the webview's messages ----------------------------------------------------------

  private async onMessage(m: Msg): Promise<void> {
    try {
      await this.handle(m);
    } catch (error) {
      if (error instanceof ServerNotRunning) await this.client.explainNotRunning();
      else void notifyWith(MessageType.Error, `Harness: ${message(error)}`, errorData(error));
    }
  }

  private async handle(m: Msg): Promise<void> {
    switch (m.action) {
      case "ready":
        this.renderAll();
        if (this.goalDraft) this.post({ draft: this.goalDraft });
        if (this.focusPrompt) this.post({ focusPrompt: true });
        this.focusPrompt = false;
        if (this.conv.items.length === 0 && this.client.running) await this.restore();
        return;
      case "send":
        return this.send(m.text ?? "");
      case "stop":
        if (this.conv.running !== undefined) await this.client.command(Cmd.cancel, { runId: this.conv.running });
        return;
      case "approve":
        return this.answer(m.run, m.call, m.decision);
      case "approvalDiff":
        return this.approvalDiff(m.run, m.call);
      case "attach":
        return this.attach();
      case "openLink":
        return this.openLink(m.href);
      case "diff":
        return this.diff(m.path ?? "");
      case "revertFile":
        return this.revertFile(m.path ?? "");
      case "revertAll":
        return this.revertAll();
      case "history":
        return this.loadHistory();
      case "openConversation":
        return this.open(Number(m.conversation));
      case "newConversation":
        return this.newConversation();
      case VERIFY_ACTION:
        if (await this.verify.choose()) this.renderAll();
        return;
    }
  }

  private folder(): vscode.WorkspaceFolder | undefined {
    return fileFolders()[0];
  }

  /** The prompt: a follow-up in the open conversation, or the first turn of a new one. */
  private async send(text: string): Promise<void> {
    const folder = this.folder();
    if (!text.trim() || !folder) return;
    this.goalDraft = undefined;
    const args = {
      goal: text,
      workspaceFolder: folderArg(folder),
      ...(this.conv.id !== undefined ? { conversationId: this.conv.id } : {}),
      ...(this.attached.length
        ? { context: this.attached.map(({ uri, range }) => (range ? { uri, range } : { uri })) }
        : {}),
      ...this.verify.arg(),
    };
    let started: { runId: number; conversationId?: number };
    try {
      started = await this.client.command(Cmd.run, args);
    } catch (error) {
      this.post({ draft: text }); // the typed prompt is never lost
      throw error;
    }
    this.attached = [];
    this.conv.id ??= started.conversationId ?? started.runId;
    await this.state.update(OPEN_KEY, this.conv.id);
    this.conv.userTurn(started.runId, text);
    this.model.runStarted(started.runId);
    this.item.render();
    this.renderAll();
  }

  /** `harness.attachAndFocus` (attach.ts: a code action's "Fix with Harness", "Ask Harness…"):
   * `ref` as a chip, `goal` in the prompt box unless the user typed there, the box focused. */
  async attachContext(ref: ContextRef, goal?: string): Promise<void> {
    if (!this.attached.some((a) => a.uri === ref.uri && a.label === ref.label)) this.attached.push(ref);
    if (goal) this.goalDraft = goal;
    this.focusPrompt = this.view === undefined;
    await this.reveal(false);
    this.renderAll();
    if (goal) this.post({ draft: goal });
    this.post({ focusPrompt: true });
  }

  private attach(): void {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage("Harness: open a file (and select some text) to attach it.");
      return;
    }
    const uri = editor.document.uri;
    const name = vscode.workspace.asRelativePath(uri);
    const sel = editor.selection;
    if (sel.isEmpty) this.attached.push({ uri: uri.toString(), label: name });
    else {
      const range = { start: sel.start, end: sel.end };
      this.attached.push({ uri: uri.toString(), range, label: `${name}:${sel.start.line + 1}-${sel.end.line + 1}` });
    }
    this.renderAll();
  }

  /** Only http(s) and mailto, and through VS Code's own confirmation (link protection). */
  private async openLink(href: string | undefined): Promise<void> {
    if (!href || !/^(https?:\/\/|mailto:)/i.test(href)) return;
    await vscode.env.openExternal(vscode.Uri.parse(href, true));
  }

  private async approvalDiff(run: string | undefined, call: string | undefined): Promise<void> {
    const ask = this.pending.get(askKey(Number(run), call ?? ""))?.params;
    const folder = this.folder();
    if (!ask?.diff || !folder) return;
    await openProposedDiff(this.texts, folder.uri, ask.target, ask.diff);
  }

  // -- changes and history -------------------------------------------------------------

  /** The Changes list again (after a keep or an undo in the editor: hunkCommands.ts). */
  refreshChanges(): Promise<void> {
    return this.loadChanges();
  }

  private async loadChanges(): Promise<void> {
    if (this.conv.id === undefined) return;
    try {
      this.changes = await this.convChanges.list(this.conv.id, this.conv.runs());
    } catch (error) {
      this.client.log(`harness.run.changes: ${message(error)}`);
    }
    this.renderAll();
  }

  private async diff(path: string): Promise<void> {
    const change = this.changes.find((c) => c.path === path);
    const folder = this.folder();
    if (!change || !folder) return;
    await openChangeDiff(this.texts, folder.uri, path, change.before);
  }

  private async revertFile(path: string, force = false): Promise<void> {
    if (this.conv.id === undefined) return;
    if (!force && !(await askUndoFile(path))) return; // ↶ asks first (issue 36)
    const file = await this.convChanges.revertFile(this.conv.id, this.conv.runs(), path, force);
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

  private async revertAll(): Promise<void> {
    const pick = await vscode.window.showWarningMessage(
      `Harness: put back every file this conversation changed (${this.changes.length})?`,
      { modal: true },
      "Revert All",
    );
    if (pick !== "Revert All") return;
    if (this.conv.id !== undefined) {
      await this.convChanges.revertAll(
        this.conv.id,
        this.conv.runs(),
        this.changes.map((c) => c.path),
      );
    }
    await this.loadChanges();
  }

  private async loadHistory(): Promise<void> {
    const folder = this.folder();
    this.history = await this.client.command<ConversationRow[]>(Cmd.conversations, {
      limit: 30,
      ...(folder ? { workspaceFolder: folderArg(folder) } : {}),
    });
    this.post({ history: historyHtml(this.history, this.conv.id) });
  }

  private async open(id: number): Promise<void> {
    if (!Number.isInteger(id)) return;
    this.conv = new Conversation(id);
    this.changes = [];
    await this.state.update(OPEN_KEY, id);
    await this.restore();
  }
}
