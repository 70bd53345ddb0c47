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
} from "vscode-languageclient/node";
import { findServer, type Discovery } from "./discovery";
import { handleMessages, plainProgress } from "./messages";
import { plainText } from "./plainText";
import { BUDGET, DID_WRITE, RUN_FINISHED, type Budget, type RunFinished } from "./protocol";
import { permittedValue, SECTION, serverSettings, type ReadSetting, type SettingKey } from "./settings";
import { serverCommandGuard } from "./trust";

export class ServerNotRunning extends Error {}

/** The `harness.*` settings as they may be used: the user's own for what runs and where
 * data and keys go, a workspace's cost caps only in a trusted workspace (SPEC §10). */
export function settingReader(): ReadSetting {
  const config = vscode.workspace.getConfiguration(SECTION);
  const trusted = vscode.workspace.isTrusted;
  return (key: SettingKey) => permittedValue(key, config.inspect(key), trusted, config.get(key));
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
  /** Why the server is not running, when it is not. */
  problem: string | undefined = "The Harness language server is starting.";

  readonly onBudget = this.budgetEvents.event;
  readonly onRunFinished = this.finishedEvents.event;
  /** A new server process answered `initialize` (after every start and restart). */
  readonly onReady = this.readyEvents.event;
  readonly onMissing = this.missingEvents.event;

  constructor(readonly output: vscode.LogOutputChannel) {}

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
      this.log(this.problem);
      this.missingEvents.fire(found);
      return;
    }
    this.log(`starting ${found.command} (found through ${found.source})`);
    const client = this.create(found.command);
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

  private create(command: string): LanguageClient {
    const cwd = folderPaths()[0];
    const run: Executable = { command, args: [], transport: TransportKind.stdio, options: { cwd } };
    const serverOptions: ServerOptions = { run, debug: run };
    const clientOptions: LanguageClientOptions = {
      // Every file, so the server knows which buffers hold unsaved changes (SPEC §6.5).
      documentSelector: [{ scheme: "file" }],
      outputChannel: this.output,
      initializationOptions: () => currentSettings(),
      middleware: {
        handleWorkDoneProgress: plainProgress,
        executeCommand: serverCommandGuard,
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
    handleMessages(client);
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
  }
}

export function message(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
