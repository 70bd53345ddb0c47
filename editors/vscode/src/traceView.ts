/**
 * Show Trace (SPEC §10): a webview of the runs in the store and, per run, the chart of
 * request tokens per step against the ceiling; a step opens its full prompt and results as
 * a read-only virtual document (`harness-trace:/run-7/step-3.md`).
 */
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import type { HarnessClient } from "./client";
import { escapeHtml } from "./html";
import { plainText } from "./plainText";
import { Cmd, type RunSummary, type StepDetail, type TraceRun } from "./protocol";
import { parseStepPath, SCHEME, stepDocument, stepPath } from "./stepDocument";
import { runHtml, runsHtml, shellHtml } from "./traceHtml";

type FromView =
  { type: "ready" } | { type: "openRun"; runId: number } | { type: "openStep"; runId: number; step: number };

const RUNS_LIMIT = 50;

export class TraceView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private selected: number | undefined;
  private runs: RunSummary[] = [];
  private reloading = false;
  private reloadAgain = false;

  constructor(
    private readonly client: HarnessClient,
    private readonly shownRun: () => number | undefined,
  ) {}

  wire(): vscode.Disposable[] {
    return [
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, new StepDocuments(this.client)),
      // A run on screen follows its steps; a run's end refreshes the list.
      this.client.onBudget((b) => {
        if (this.panel && (this.selected === b.runId || this.selected === undefined)) this.reload(b.runId);
      }),
      this.client.onRunFinished((f) => {
        if (this.panel) this.reload(this.selected ?? f.runId);
      }),
    ];
  }

  open(runId?: number): void {
    this.selected = runId ?? this.shownRun() ?? this.selected;
    if (this.panel) {
      this.panel.reveal();
      this.reload(this.selected);
      return;
    }
    const panel = vscode.window.createWebviewPanel("harness.trace", "Harness Trace", vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [],
    });
    this.panel = panel;
    panel.webview.html = shellHtml({ nonce: randomBytes(16).toString("base64"), cspSource: panel.webview.cspSource });
    panel.webview.onDidReceiveMessage((m: FromView) => this.received(m));
    panel.onDidDispose(() => {
      this.panel = undefined;
    });
  }

  private received(m: FromView): void {
    if (m.type === "ready") this.reload(this.selected);
    if (m.type === "openRun") this.reload(m.runId);
    if (m.type === "openStep") void this.openStep(m.runId, m.step);
  }

  /** Reload the list and the run shown; calls while one is in flight coalesce into one more. */
  private reload(runId: number | undefined): void {
    this.selected = runId;
    if (this.reloading) {
      this.reloadAgain = true;
      return;
    }
    this.reloading = true;
    this.load()
      .catch((error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        this.client.log(`trace view: ${text}`);
        void this.panel?.webview.postMessage({
          type: "run",
          runId: -1,
          html: `<p class="muted">${escapeHtml(text)}</p>`,
        });
      })
      .finally(() => {
        this.reloading = false;
        if (this.reloadAgain) {
          this.reloadAgain = false;
          this.reload(this.selected);
        }
      });
  }

  private async load(): Promise<void> {
    this.runs = await this.client.command<RunSummary[]>(Cmd.traceRuns, { limit: RUNS_LIMIT });
    const runId = this.selected ?? this.runs[0]?.runId;
    this.selected = runId;
    const webview = this.panel?.webview;
    if (!webview) return;
    await webview.postMessage({ type: "runs", html: runsHtml(this.runs, runId) });
    if (runId === undefined) return;
    const trace = await this.client.command<TraceRun>(Cmd.traceRun, { runId });
    await webview.postMessage({ type: "run", runId, html: runHtml(trace) });
  }

  private async openStep(runId: number, step: number): Promise<void> {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: stepPath(runId, step) });
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    } catch (error) {
      void vscode.window.showErrorMessage(
        plainText(`Harness: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

/** `harness-trace:` documents: one step's full prompt and results, read-only. */
class StepDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly client: HarnessClient) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const at = parseStepPath(uri.path);
    if (!at) throw new Error(`not a trace step: ${uri.toString()}`);
    const detail = await this.client.command<StepDetail>(Cmd.traceStep, at);
    return stepDocument(detail);
  }
}
