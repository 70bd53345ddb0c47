/**
 * The conversation panel (SPEC §11, issue 36): the webview view `harness.conversation`. It
 * keeps the open conversation (drawn from `harness/runEvent`s, restored after a reload from
 * `harness.run.events`), answers `harness/approve` inline (focus on the card, keys), starts
 * runs, follow-ups, plan runs and prompts (`/name`) from its prompt box, steers a run in
 * progress, and shows errors in its own words. The HTML is built by `panelHtml` (escaped,
 * Markdown sanitised); the lists by `PanelLists`; the chips by `Attachments`.
 */
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { message, ServerNotRunning, type HarnessClient } from "./client";
import { openProposedDiff, type TextsProvider } from "./changes";
import { Conversation } from "./conversation";
import { fileFolders } from "./folders";
import { openSetting } from "./messages";
import { askKey, budgetHtml, conversationHtml, panelShell, type Setup } from "./panelHtml";
import { Attachments, type ContextRef } from "./panelInput";
import { PanelLists } from "./panelLists";
import { Early, PanelSender } from "./panelSend";
import { chooseModel, errorHtml, modelHtml, setupState } from "./panelSetup";
import { errorWords } from "./panelWords";
import { oneLine } from "./format";
import { Cmd, type ApproveParams, type Decision, type ErrorData, type RunEvent, type RunFinished } from "./protocol";
import { SECTION } from "./settings";
import { SCHEME, stepPath } from "./stepDocument";
import { VERIFY_ACTION } from "./verifyChoice";
import { VerifyControl } from "./verifyControl";
import { errorData } from "./words";
import type { BudgetItem } from "./statusBar";
import type { StatusModel } from "./statusModel";

export const VIEW_ID = "harness.conversation";
const OPEN_KEY = "harness.openConversation";

interface Pending {
  params: ApproveParams;
  answer: (d: Decision) => void;
}

type Msg = Record<string, string | undefined> & { action?: string };

export class ConversationPanel implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  conv: Conversation;
  private readonly pending = new Map<string, Pending>();
  readonly attachments = new Attachments();
  private renderTimer: NodeJS.Timeout | undefined;
  readonly verify = new VerifyControl();
  readonly lists: PanelLists;
  private readonly sender: PanelSender;
  readonly early = new Early();
  private setup: Setup | undefined;
  private error = "";
  /** What `attachContext` sent before the webview had loaded (its script was not listening
   * yet): sent again on "ready". */
  private forReady: Record<string, unknown> | undefined;

  constructor(
    readonly client: HarnessClient,
    readonly model: StatusModel,
    readonly item: BudgetItem,
    private readonly state: vscode.Memento,
    private readonly extensionUri: vscode.Uri,
    private readonly texts: TextsProvider,
    private readonly secrets?: vscode.SecretStorage,
  ) {
    this.conv = new Conversation(state.get<number>(OPEN_KEY));
    this.lists = new PanelLists(client, texts, {
      conversation: () => this.conv,
      folder: () => this.folder(),
      post: (m) => this.post(m),
      reload: () => this.open(this.conv.id ?? NaN),
    });
    this.sender = new PanelSender(this);
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
        if (e.affectsConfiguration(SECTION)) void this.refreshSetup();
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

  /** The panel is on screen (its end line shows the run's end: no notification then). */
  visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** The status bar's click while an approval waits: the panel, scrolled to it. */
  async showApproval(): Promise<void> {
    await this.reveal(false);
    const first = [...this.pending.values()][0];
    if (first) this.post({ focusKey: askKey(first.params.runId, first.params.callId) });
  }

  /** The keybinding: the panel, the caret in its prompt box. */
  async focusPrompt(): Promise<void> {
    await this.reveal(false);
    this.post({ focusPrompt: true });
  }

  /** `harness.attachAndFocus` (attach.ts: a code action's "Fix with Harness", "Ask Harness…"):
   * `ref` as a chip, `goal` in the prompt box unless the user typed there, the box focused. */
  async attachContext(ref: ContextRef, goal?: string): Promise<void> {
    const refs = this.attachments.refs;
    if (!refs.some((a) => a.uri === ref.uri && a.label === ref.label)) refs.push(ref);
    const loaded = this.view !== undefined;
    await this.reveal(false);
    this.renderAll();
    const m = { ...(goal ? { draft: goal } : {}), focusPrompt: true };
    if (!loaded) this.forReady = m;
    this.post(m);
  }

  /** The Changes list again (after a keep or an undo in the editor: hunkCommands.ts). */
  refreshChanges(): Promise<void> {
    return this.lists.loadChanges();
  }

  /** Harness: Run Task: the goal runs in the panel, drawn live — a task of its own (a new
   * conversation), as Run Task always was. */
  async runGoal(goal: string): Promise<void> {
    await this.reveal(true);
    await this.newConversation();
    await this.onMessage({ action: "send", text: goal, mode: "code", steer: "queue" });
  }

  /** The run's error (a provider's reason), in the panel under its end line. */
  runError(runId: number, error: ErrorData): void {
    if (!this.ours(runId)) return;
    this.showError(`Run ${runId} stopped: ${error.error ?? error.outcome ?? "an error"}`, error);
  }

  async newConversation(): Promise<void> {
    this.conv = new Conversation();
    this.lists.changes = [];
    await this.state.update(OPEN_KEY, undefined);
    this.renderAll();
  }

  async opened(id: number): Promise<void> {
    await this.state.update(OPEN_KEY, id);
  }

  ours(runId: number): boolean {
    return this.conv.runs().includes(runId) || this.conv.running === runId;
  }

  private event(e: RunEvent): void {
    const mine = this.conv.id === undefined ? this.conv.running === e.runId : this.conv.id === e.conversationId;
    if (!mine) {
      this.early.event(e);
      return;
    }
    if (this.conv.apply(e)) this.schedule();
    if (e.kind === "user" || e.kind === "end") void this.lists.loadHistory();
  }

  private async runFinished(f: RunFinished): Promise<void> {
    if (!this.ours(f.runId)) {
      this.early.end(f);
      return;
    }
    if (this.conv.id !== undefined) this.lists.forget(this.conv.id);
    this.conv.finished(f);
    this.renderAll();
    await this.lists.loadChanges();
    await this.lists.loadHistory();
  }

  /** After a reload (or a server restart): the open conversation from the store. */
  async restore(): Promise<void> {
    const id = this.conv.id;
    await this.refreshSetup();
    if (id === undefined) return;
    try {
      const events = await this.client.command<RunEvent[]>(Cmd.runEvents, { conversationId: id });
      for (const e of events) this.conv.apply(e);
    } catch (error) {
      this.client.log(`harness.run.events: ${message(error)}`);
    }
    this.renderAll();
    await this.lists.loadChanges();
  }

  private async refreshSetup(): Promise<void> {
    if (this.secrets) this.setup = await setupState(this.secrets);
    this.renderAll();
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
      // The card takes the focus (keys answer it) when the panel is where the user works.
      void this.reveal(!this.visible()).then(() => this.post({ focusApproval: key }));
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

  async reveal(preserveFocus: boolean): Promise<void> {
    if (this.view) this.view.show(preserveFocus);
    else await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  }

  post(m: Record<string, unknown>): void {
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

  /** The error in the panel; the conversation drawn again (a turn drawn at once whose run
   * did not start goes away). */
  showError(text: string, data?: ErrorData): void {
    this.error = errorHtml(errorWords(text, data));
    this.renderAll();
  }

  clearError(): void {
    this.error = "";
    this.post({ error: "" });
  }

  renderAll(): void {
    const asks = new Map([...this.pending].map(([k, p]) => [k, p.params]));
    const first = this.conv.items.find((i) => i.kind === "user");
    const running = this.conv.running;
    const waiting = [...this.pending.values()].find((p) => this.ours(p.params.runId))?.params;
    this.post({
      title: first?.kind === "user" ? oneLine(first.text, 60) : "New conversation",
      budget: budgetHtml(this.conv.budget, running, waiting, this.conv.items.length > 0),
      conv: conversationHtml(this.conv, asks, this.setup),
      changes: this.lists.html(),
      attached: this.attachments.html(),
      running: running !== undefined,
      steer: running === undefined ? "" : `Run ${running} is going: Enter`,
      verify: this.verify.html(),
      model: modelHtml(),
      error: this.error,
    });
  }

  // -- the webview's messages ----------------------------------------------------------

  private async onMessage(m: Msg): Promise<void> {
    try {
      await this.handle(m);
    } catch (error) {
      if (error instanceof ServerNotRunning) await this.client.explainNotRunning();
      else this.showError(message(error), errorData(error));
    }
  }

  private async handle(m: Msg): Promise<void> {
    if (await this.sender.handle(m)) return;
    switch (m.action) {
      case "ready":
        this.renderAll();
        if (this.forReady) this.post(this.forReady);
        this.forReady = undefined;
        if (this.conv.items.length === 0 && this.client.running) await this.restore();
        else await this.refreshSetup();
        return;
      case "approve":
        return this.answer(m.run, m.call, m.decision);
      case "approvalDiff":
        return this.approvalDiff(m.run, m.call);
      case "showApproval":
        return this.showApproval();
      case "openLink":
        return this.openLink(m.href);
      case "openSetting":
        if (m.setting?.startsWith(`${SECTION}.`)) await openSetting(m.setting);
        return;
      case "setApiKey":
        await vscode.commands.executeCommand("harness.setApiKey");
        this.clearError();
        return this.refreshSetup();
      case "dismissError":
        return this.clearError();
      case "chooseModel":
        if (this.secrets && (await chooseModel(this.secrets))) this.renderAll();
        return;
      case "openResult":
        return this.openResult(Number(m.run), Number(m.step));
      case VERIFY_ACTION:
        if (await this.verify.choose()) this.renderAll();
        return;
    }
    return this.handleLists(m);
  }

  private async handleLists(m: Msg): Promise<void> {
    switch (m.action) {
      case "diff":
        return this.lists.diff(m.path ?? "");
      case "revertFile":
        return this.lists.revertFile(m.path ?? "");
      case "revertAll":
        return this.lists.revertAll();
      case "history":
        return this.lists.loadHistory(m.open === "1");
      case "openConversation":
        return this.open(Number(m.conversation));
      case "newConversation":
        return this.newConversation();
      case "restore":
        return this.lists.restore(Number(m.turn));
    }
  }

  folder(): vscode.WorkspaceFolder | undefined {
    return fileFolders()[0];
  }

  /** The whole result of a row: the step in the trace, in an editor. */
  private async openResult(runId: number, step: number): Promise<void> {
    if (!Number.isInteger(runId) || !Number.isInteger(step)) return;
    const uri = vscode.Uri.from({ scheme: SCHEME, path: stepPath(runId, step) });
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: false });
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

  private async open(id: number): Promise<void> {
    if (!Number.isInteger(id)) return;
    this.conv = new Conversation(id);
    this.lists.changes = [];
    await this.state.update(OPEN_KEY, id);
    await this.restore();
  }
}
