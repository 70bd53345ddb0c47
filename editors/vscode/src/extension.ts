/**
 * The extension's entry point: `activate` only wires things — the output channel, the
 * status bar item, the commands, the one language client — and never throws. Starting the
 * server happens in the background; a failure is reported, not thrown.
 *
 * The server's own command ids (`harness.run`, `harness.memory.list`, …) are registered by
 * vscode-languageclient; the ids here (`harness.runTask`, …) never clash with them.
 */
import * as vscode from "vscode";
import { HarnessClient } from "./client";
import { guarded } from "./errors";
import { Memory } from "./memory";
import { announceMissing } from "./missingServer";
import { Revert } from "./revert";
import { Runs } from "./runs";
import { SECTION } from "./settings";
import { BudgetItem, SHOW_APPROVAL } from "./statusBar";
import { setApiKey } from "./apiKey";
import { TextsProvider } from "./changes";
import { ConversationPanel } from "./panel";
import { StatusModel } from "./statusModel";
import { TraceView } from "./traceView";
import { refreshHarnessTrust, trustFolder } from "./trust";
import { registerAttach } from "./attach";
import { HarnessCodeActions } from "./codeActions";
import { HunkCommands } from "./hunkCommands";
import { HunkReview } from "./hunkReview";

let client: HarnessClient | undefined;

export function activate(context: vscode.ExtensionContext): void {
  try {
    wire(context);
  } catch (error) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`harness: activation failed: ${text}`);
    void vscode.window.showErrorMessage(
      `Harness could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function wire(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("Harness", { log: true });
  const harness = new HarnessClient(output, context.secrets, context.extensionUri);
  client = harness;
  const model = new StatusModel();
  const item = new BudgetItem(model);
  const trace = new TraceView(harness, () => model.shownRun());
  const revert = new Revert(harness, (runId: number): readonly string[] | undefined => runs.filesChanged(runId));
  const showTrace = guarded(harness, "Show Trace", (runId?: number) =>
    Promise.resolve(trace.open(typeof runId === "number" ? runId : undefined)),
  );
  const revertRun = guarded(harness, "Revert Run", (runId?: number) =>
    revert.run(typeof runId === "number" ? runId : undefined),
  );
  const runs = new Runs(harness, model, item, context.workspaceState, {
    showTrace,
    revertRun,
    panelVisible: () => panel.visible(),
    showPanel: () => panel.reveal(false),
    runInPanel: (goal: string) => panel.runGoal(goal),
    runError: (runId, error) => panel.runError(runId, error),
  });
  const memory = new Memory(harness, () => void runs.refreshStatus());
  const texts = new TextsProvider();
  const panel = new ConversationPanel(
    harness,
    model,
    item,
    context.workspaceState,
    context.extensionUri,
    texts,
    context.secrets,
  );
  const review = new HunkReview(harness, context.workspaceState, context.extensionUri);
  const reviewCommands = new HunkCommands(harness, review);
  const command = (id: string, name: string, fn: () => Promise<unknown>): vscode.Disposable =>
    vscode.commands.registerCommand(id, guarded(harness, name, fn));

  context.subscriptions.push(
    output,
    harness,
    item,
    trace,
    ...runs.wire(),
    ...trace.wire(),
    ...panel.wire(),
    texts.register(),
    ...review.wire(),
    ...reviewCommands.wire(),
    reviewCommands.onDidAct(() => void panel.refreshChanges()),
    new HarnessCodeActions(review).register(),
    registerAttach((ref, goal) => panel.attachContext(ref, goal)),
    // Whether the harness trusts the folders: a workspace's verify and caps wait for it (issue 30).
    harness.onReady(() => void refreshHarnessTrust(harness).catch((e: unknown) => harness.log(`trust: ${String(e)}`))),
    command("harness.setApiKey", "Set API Key", () => setApiKey(context.secrets, harness)),
    command("harness.newConversation", "New Conversation", () => panel.newConversation()),
    command(SHOW_APPROVAL, "Show Approval", () => panel.showApproval()),
    command("harness.focusPrompt", "Focus the Prompt", () => panel.focusPrompt()),
    harness.onMissing((missing) => void announceMissing(context.extensionUri, missing, harness)),
    command("harness.runTask", "Run Task", () => runs.runTask()),
    command("harness.cancelRun", "Cancel Run", () => runs.cancelRun()),
    command("harness.showMemory", "Show Memory", () => memory.show()),
    command("harness.clearMemory", "Clear Memory", () => memory.clear()),
    command("harness.addMemoryNote", "Add Memory Note", () => memory.add()),
    vscode.commands.registerCommand("harness.showTrace", showTrace),
    vscode.commands.registerCommand("harness.revertRun", revertRun),
    command("harness.trustFolder", "Trust This Folder", () => trustFolder(harness)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION) || e.affectsConfiguration("security.workspace.trust.enabled")) {
        void harness.refresh();
      }
    }),
    // Trust changes which server may start (the workspace's .venv) and the `trusted` setting.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void harness.refresh()),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      void runs.refreshStatus();
      void refreshHarnessTrust(harness).catch((e: unknown) => harness.log(`trust: ${String(e)}`));
    }),
  );
  void harness.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
