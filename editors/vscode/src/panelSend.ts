/**
 * What the panel's prompt box sends (SPEC §11, issue 36): a new conversation's first turn
 * or a follow-up, in code or plan mode, with the chips as context; `/name args` as the
 * prompt of `harness.prompts` (the client's built-ins carried out here); while a run goes
 * on, Enter queues the words into it (`harness.run.steer`) or — the other choice shown —
 * stops it and sends them as the next turn. Also the `@` / `/` completions and the chips.
 */
import * as vscode from "vscode";
import type { HarnessClient } from "./client";
import type { Conversation } from "./conversation";
import { folderArg } from "./folders";
import { CLIENT_BUILTINS, parseSlash, promptList, type PromptEntry, type Slash } from "./mentions";
import type { Attachments } from "./panelInput";
import type { PanelLists } from "./panelLists";
import type { Completion } from "./panelWebComplete";
import { Cmd, type RunEvent, type RunFinished } from "./protocol";
import type { BudgetItem } from "./statusBar";
import type { StatusModel } from "./statusModel";
import type { VerifyControl } from "./verifyControl";

/** Events of runs this window has not placed yet (a run that ends before `harness.run`
 * answers): kept for the last few runs, replayed once the run's id is known. */
export class Early {
  private readonly events = new Map<number, RunEvent[]>();
  private readonly ends = new Map<number, RunFinished>();

  event(e: RunEvent): void {
    const list = this.events.get(e.runId) ?? [];
    list.push(e);
    this.events.set(e.runId, list);
    this.trim();
  }

  end(f: RunFinished): void {
    this.ends.set(f.runId, f);
    this.trim();
  }

  take(runId: number): { events: RunEvent[]; end?: RunFinished } {
    const out = { events: this.events.get(runId) ?? [], end: this.ends.get(runId) };
    this.events.delete(runId);
    this.ends.delete(runId);
    return out;
  }

  private trim(): void {
    for (const map of [this.events, this.ends] as Map<number, unknown>[]) {
      while (map.size > 8) map.delete(map.keys().next().value as number);
    }
  }
}

export interface SendHost {
  readonly client: HarnessClient;
  readonly model: StatusModel;
  readonly item: BudgetItem;
  readonly attachments: Attachments;
  readonly verify: VerifyControl;
  readonly lists: PanelLists;
  readonly early: Early;
  conv: Conversation;
  folder(): vscode.WorkspaceFolder | undefined;
  post(m: Record<string, unknown>): void;
  renderAll(): void;
  clearError(): void;
  opened(id: number): Promise<void>;
  newConversation(): Promise<void>;
}

type Msg = Record<string, string | undefined>;

const STOP_WAIT_MS = 15_000;
const PROMPTS_FRESH_MS = 10_000;

export class PanelSender {
  private prompts: { at: number; list: PromptEntry[] } | undefined;

  constructor(private readonly host: SendHost) {}

  /** The prompt box's messages; false when `m` is not one of them. */
  async handle(m: Msg): Promise<boolean> {
    switch (m.action) {
      case "send":
        await this.send(m.text ?? "", m.mode === "plan" ? "plan" : "code", m.steer === "stop" ? "stop" : "queue");
        return true;
      case "stop":
        if (this.host.conv.running !== undefined) {
          await this.host.client.command(Cmd.cancel, { runId: this.host.conv.running });
        }
        return true;
      case "attach":
        this.attach();
        return true;
      case "unattach":
        this.host.attachments.remove(Number(m.index));
        this.host.renderAll();
        return true;
      case "complete":
        await this.complete(m.trigger === "/" ? "/" : "@", m.query ?? "", Number(m.seq));
        return true;
      case "pick":
        if (m.trigger === "@") this.host.attachments.pick(m.id ?? "");
        this.host.renderAll();
        return true;
    }
    return false;
  }

  private async send(text: string, mode: "code" | "plan", steer: "queue" | "stop"): Promise<void> {
    const folder = this.host.folder();
    if (!text.trim() || !folder) return;
    this.host.clearError();
    const slash = parseSlash(text);
    if (slash && CLIENT_BUILTINS.has(slash.name)) return this.builtin(slash);
    const running = this.host.conv.running;
    if (running !== undefined && steer === "queue") return this.steer(running, text);
    if (running !== undefined) await this.stopThen(running);
    try {
      await this.start(folder, text, slash, mode);
    } catch (error) {
      this.host.post({ draft: text }); // the typed prompt is never lost
      throw error;
    }
  }

  private async start(
    folder: vscode.WorkspaceFolder,
    text: string,
    slash: Slash | undefined,
    mode: string,
  ): Promise<void> {
    const { conv, attachments } = this.host;
    const what = slash
      ? { prompt: slash.name, ...(slash.args ? { arguments: slash.args } : {}) }
      : { goal: attachments.goal(text), ...(mode === "plan" ? { mode } : {}) };
    const context = attachments.context();
    const args = {
      ...what,
      workspaceFolder: folderArg(folder),
      ...(conv.id !== undefined ? { conversationId: conv.id } : {}),
      ...(context.length ? { context } : {}),
      ...this.host.verify.arg(),
    };
    const started = await this.host.client.command<{ runId: number; conversationId?: number }>(Cmd.run, args);
    const labels = attachments.labels();
    attachments.clear();
    conv.id ??= started.conversationId ?? started.runId;
    await this.host.opened(conv.id);
    conv.userTurn(started.runId, text, { mode, ...(labels.length ? { attached: labels } : {}) });
    this.placed(started.runId);
  }

  /** The run's id is known: what came before it (a fast run's whole life) is applied. */
  private placed(runId: number): void {
    const { conv, model, item } = this.host;
    const early = this.host.early.take(runId);
    for (const e of early.events) conv.apply(e);
    model.runStarted(runId); // ignored when its end came first
    if (early.end) {
      conv.finished(early.end);
      void this.host.lists.loadChanges();
    }
    item.render();
    this.host.renderAll();
  }

  private async steer(runId: number, text: string): Promise<void> {
    try {
      await this.host.client.command(Cmd.steer, { runId, text });
    } catch (error) {
      this.host.post({ draft: text });
      throw error;
    }
  }

  /** "Stop and send": cancel the run and wait for its end, then the words are the next turn. */
  private async stopThen(runId: number): Promise<void> {
    const ended = new Promise<void>((resolve) => {
      const timer = setTimeout(done, STOP_WAIT_MS);
      const sub = this.host.client.onRunFinished((f) => f.runId === runId && done());
      function done(): void {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
    await this.host.client.command(Cmd.cancel, { runId });
    await ended;
  }

  private async builtin(slash: Slash): Promise<void> {
    switch (slash.name) {
      case "new":
        return this.host.newConversation();
      case "undo": {
        const turns = this.host.conv.turns().length;
        if (turns > 0) await this.host.lists.restore(turns);
        return;
      }
      case "memory":
        await vscode.commands.executeCommand("harness.showMemory");
        return;
      case "cost":
      case "help": {
        const list = await this.promptsOf();
        const names = list.map((p) => `/${p.name}`).join(" ");
        const text = slash.name === "cost" ? "The budget is at the top of the panel." : `Prompts: ${names}`;
        void vscode.window.showInformationMessage(`Harness: ${text}`);
        return;
      }
    }
  }

  private async promptsOf(): Promise<PromptEntry[]> {
    if (this.prompts && Date.now() - this.prompts.at < PROMPTS_FRESH_MS) return this.prompts.list;
    const folder = this.host.folder();
    const list = await this.host.client.command<PromptEntry[]>(
      Cmd.prompts,
      folder ? { workspaceFolder: folderArg(folder) } : {},
    );
    this.prompts = { at: Date.now(), list };
    return list;
  }

  private async complete(trigger: "@" | "/", query: string, seq: number): Promise<void> {
    const folder = this.host.folder();
    if (!folder) return;
    let items: Completion[];
    if (trigger === "/") {
      const prompts = (await this.promptsOf()).map((p) =>
        p.path ? { ...p, path: vscode.workspace.asRelativePath(p.path, false) } : p,
      );
      items = promptList(prompts, query).map((p) => ({
        id: p.name,
        label: `/${p.name}${p.hint ? ` ${p.hint}` : ""}`,
        detail: [p.source, p.description, p.error ? `cannot run: ${p.error}` : ""].filter(Boolean).join(" — "),
      }));
    } else {
      items = await this.host.attachments.complete(folder, query);
    }
    this.host.post({ completions: { seq, trigger, items } });
  }

  private attach(): void {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage("Harness: open a file (and select some text) to attach it.");
      return;
    }
    this.host.attachments.attachEditor(editor);
    this.host.renderAll();
  }
}
