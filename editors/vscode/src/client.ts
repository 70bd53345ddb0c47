/**
 * The one language client of the window: finds `harness-lsp`, starts it over stdio for all
 * workspace folders, keeps its settings in sync (with Workspace Trust as `trusted`), and
 * gives the rest of the extension typed server commands and the server's notifications.
 */
import * as os from "node:os";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  State,
  TransportKind,
  type Executable,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from "vscode-languageclient/node";
import { serverCodeActionFilter } from "./codeActions";
import { findServer, type Discovery } from "./discovery";
import { handleMessages, plainProgress } from "./messages";
import { announceMissing } from "./missingServer";
import { plainText } from "./plainText";
import {
  APPROVE,
  BUDGET,
  DID_WRITE,
  RUN_EVENT,
  RUN_FINISHED,
  type ApproveParams,
  type Budget,
  type Decision,
  type ErrorData,
  type RunEvent,
  type RunFinished,
} from "./protocol";
import { registerSemantic } from "./semantic";
import { readerFor, SECTION, serverSettings, settingsTrusted, type ReadSetting } from "./settings";
import { harnessTrusts, serverCommandGuard } from "./trust";

export class ServerNotRunning extends Error {}

/** Where `Harness: Set API Key` keeps the key (VS Code's SecretStorage). */
export const API_KEY_SECRET = "harness.apiKey";
/** The server reads the key from this variable of its own process before any other (SPEC §9). */
export const API_KEY_ENV = "HARNESS_API_KEY";

/** Who answers `harness/approve` (the conversation panel). */
export type Approver = (params: ApproveParams) => Promise<Decision>;

/** `experimental.harness.approvals` in `initialize`: the server then asks approvals with
 * `harness/approve`, drawn inline in the conversation panel (SPEC §7). */
const inlineApprovals: StaticFeature = {
  fillClientCapabilities(capabilities) {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, harness: { approvals: true } };
  },
  initialize() {},
  getState: () => ({ kind: "static" }),
  clear() {},
};

/** The `harness.*` settings as they may be used: the user's own for what runs and where
 * data and keys go, a workspace's cost caps and verify only in a workspace the harness
 * trusts (SPEC §10; with Workspace Trust off, the harness's own list: issue 30). */
export function settingReader(): ReadSetting {
  return readerFor(vscode.workspace.getConfiguration(SECTION), settingsTrusted(trustVerdict(), harnessTrusts()));
}

export function currentSettings(): ReturnType<typeof serverSettings> {
  return serverSettings(settingReader(), trustVerdict());
}

/** Workspace Trust's verdict when the user has it on; `undefined` when it is turned off
 * (then every folder reads as trusted, which says nothing about this repository). */
export function trustVerdict(): boolean | undefined {
  const enabled = vscode.workspace.getConfiguration("security").get<boolean>("workspace.trust.enabled", true);
  return enabled ? vscode.workspace.isTrusted : undefined;
}

function folderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function discover(): Discovery {
  return findServer({
    setting: stringOrUndefined(settingReader()("serverPath")),
    folders: folderPaths(),
    trusted: vscode.workspace.isTrusted,
    envPath: process.env.PATH ?? "",
    home: os.homedir(),
  });
}

export class HarnessClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** The executable the running client was started with. */
  private serverCommand: string | undefined;
  private starting: Promise<void> | undefined;
  private readonly budgetEvents = new vscode.EventEmitter<Budget>();
  private readonly finishedEvents = new vscode.EventEmitter<RunFinished>();
  private readonly readyEvents = new vscode.EventEmitter<void>();
  private readonly missingEvents = new vscode.EventEmitter<Discovery & { found: false }>();
  private readonly runEvents = new vscode.EventEmitter<RunEvent>();
  /** The server's reason for a run that ended on an error, until its end is announced. */
  private readonly runErrors = new Map<number, ErrorData>();
  /** Why no server was found at the last start (the "Choose…" notification can come back). */
  private missing: (Discovery & { found: false }) | undefined;
  approver: Approver | undefined;
  /** Why the server is not running, when it is not. */
  problem: string | undefined = "The Harness language server is starting.";

  readonly onBudget = this.budgetEvents.event;
  readonly onRunFinished = this.finishedEvents.event;
  /** A new server process answered `initialize` (after every start and restart). */
  readonly onReady = this.readyEvents.event;
  readonly onMissing = this.missingEvents.event;
  readonly onRunEvent = this.runEvents.event;

  constructor(
    readonly output: vscode.LogOutputChannel,
    private readonly secrets: vscode.SecretStorage,
    private readonly extensionUri: vscode.Uri,
  ) {}

  /** The server's error for `runId`, once (it joins the run's end notification). */
  takeRunError(runId: number): ErrorData | undefined {
    const error = this.runErrors.get(runId);
    this.runErrors.delete(runId);
    return error;
  }

  /** A command needed the server and there is none: say why, with what fixes it ("Choose…"
   * while none is found; "Show Log" when it failed to start). */
  async explainNotRunning(): Promise<void> {
    if (this.missing !== undefined) {
      await announceMissing(this.extensionUri, this.missing, this);
      return;
    }
    const pick = await vscode.window.showErrorMessage(
      plainText(this.problem ?? "The Harness language server is not running."),
      "Show Log",
    );
    if (pick) this.output.show(true);
  }

  log(message: string): void {
    this.output.info(`[extension] ${message}`);
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /** Start (or restart) the server; never throws: a failure is logged and kept in `problem`. */
  start(): Promise<void> {
    const previous = this.starting ?? Promise.resolve();
    this.starting = previous.then(() => this.startNow());
    return this.starting;
  }

  private async startNow(): Promise<void> {
    await this.stopNow();
    const found = discover();
    if (!found.found) {
      this.problem = `${found.problem} Looked for: ${found.tried.join("; ")}.`;
      this.missing = found;
      this.log(this.problem);
      this.missingEvents.fire(found);
      return;
    }
    this.missing = undefined;
    this.log(`starting ${found.command} (found through ${found.source})`);
    const client = this.create(found.command, await this.secrets.get(API_KEY_SECRET));
    this.client = client;
    this.serverCommand = found.command;
    try {
      await client.start();
      this.problem = undefined;
    } catch (error) {
      this.problem = `The Harness language server (${found.command}) did not start: ${message(error)}`;
      this.log(this.problem);
      void vscode.window.showErrorMessage(plainText(this.problem), "Show Log").then((pick) => {
        if (pick) this.output.show(true);
      });
    }
  }

  private create(command: string, apiKey: string | undefined): LanguageClient {
    const cwd = folderPaths()[0];
    // The stored key reaches the server as an environment variable of its process: never in
    // a setting, on disk, or in the LSP traffic (which VS Code can trace to the output).
    const env = apiKey ? { ...process.env, [API_KEY_ENV]: apiKey } : undefined;
    const run: Executable = { command, args: [], transport: TransportKind.stdio, options: { cwd, env } };
    const serverOptions: ServerOptions = { run, debug: run };
    const clientOptions: LanguageClientOptions = {
      // Every file, so the server knows which buffers hold unsaved changes (SPEC §6.5).
      documentSelector: [{ scheme: "file" }],
      outputChannel: this.output,
      initializationOptions: () => currentSettings(),
      middleware: {
        handleWorkDoneProgress: plainProgress,
        executeCommand: serverCommandGuard,
        provideCodeActions: serverCodeActionFilter,
        workspace: {
          // A server that pulls its section gets what the push sends, `trusted` included.
          configuration: (params, token, next) => {
            const items = params.items;
            if (items.every((i) => i.section === SECTION)) return items.map(() => currentSettings());
            return next(params, token);
          },
        },
      },
    };
    const client = new LanguageClient("harness", "Harness", serverOptions, clientOptions);
    client.registerFeature(inlineApprovals);
    registerSemantic(client); // after inlineApprovals, which replaces experimental.harness
    handleMessages(client, (runId, error) => this.runErrors.set(runId, error));
    client.onRequest(APPROVE, (p: ApproveParams) =>
      this.approver ? this.approver(p).then((decision) => ({ decision })) : null,
    );
    client.onNotification(RUN_EVENT, (e: RunEvent) => this.runEvents.fire(e));
    // Running after our start and after the client's own restart of a crashed server.
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) this.readyEvents.fire();
    });
    client.onNotification(BUDGET, (b: Budget) => this.budgetEvents.fire(b));
    client.onNotification(RUN_FINISHED, (f: RunFinished) => this.finishedEvents.fire(f));
    // VS Code reloads clean editors from disk by itself; a dirty one the agent was kept
    // from is the server's warning (window/showMessage). Nothing more to do than note it.
    client.onNotification(DID_WRITE, (p: { uri: string }) => this.output.debug(`[server] wrote ${p.uri}`));
    return client;
  }

  /**
   * After a change of settings or trust: restart if another executable is now the server
   * (or none was running), else only push the new settings — a restart would stop its runs.
   */
  async refresh(): Promise<void> {
    if (this.starting) await this.starting;
    const found = discover();
    if (this.running && found.found && found.command === this.serverCommand) await this.pushSettings();
    else await this.start();
  }

  /** New settings for the server (the whole object, as every push replaces it). */
  async pushSettings(): Promise<void> {
    if (!this.running || this.client === undefined) return;
    await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: currentSettings() });
  }

  /** A server command with one object argument (SPEC §7); its error message is the server's. */
  async command<T>(name: string, args: object = {}): Promise<T> {
    if (this.starting) await this.starting;
    const client = this.client;
    if (client === undefined || client.state !== State.Running) {
      throw new ServerNotRunning(this.problem ?? "The Harness language server is not running.");
    }
    return (await client.sendRequest(ExecuteCommandRequest.type, { command: name, arguments: [args] })) as T;
  }

  /** Start the server again (a new key): its runs end with it. */
  async restart(): Promise<void> {
    await this.start();
  }

  private async stopNow(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.serverCommand = undefined;
    if (client === undefined) return;
    try {
      await client.dispose(5000);
    } catch (error) {
      this.log(`stopping the server: ${message(error)}`);
    }
  }

  async stop(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    await this.stopNow();
  }

  dispose(): void {
    void this.stop();
    this.budgetEvents.dispose();
    this.finishedEvents.dispose();
    this.readyEvents.dispose();
    this.missingEvents.dispose();
    this.runEvents.dispose();
  }
}

export function message(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
