/**
 * The server's messages to the user, shown as plain text (SPEC §6.3): `window/showMessage`,
 * `window/showMessageRequest` (the approvals: Allow / Allow for this run / Deny) and the
 * titles and messages of work-done progress. They carry what the model and the repository
 * wrote (a command, a path, an error); vscode-languageclient's own handlers hand them to
 * VS Code's notifications as they are, where `[label](command:…)` is a live link showing
 * only its label. These handlers replace those (registered on the client before it starts,
 * they are installed after vscode-languageclient's defaults, so they win).
 */
import * as vscode from "vscode";
import {
  MessageType,
  ShowMessageNotification,
  ShowMessageRequest,
  type LanguageClient,
  type MessageActionItem,
  type Middleware,
  type ShowMessageParams,
  type ShowMessageRequestParams,
} from "vscode-languageclient/node";
import { plainText } from "./plainText";
import { type ErrorData } from "./protocol";
import { runEndedMessage, vscodeWords } from "./words";

export const OPEN_SETTINGS = "Open Settings";

/** The Settings editor on one setting (`harness.provider.baseUrl`), on the tab where it
 * lives: in a remote window (SSH, a container, code-server) the Remote tab, where the
 * server's settings apply — the User tab there is the client machine's. */
export function openSetting(id: string): Thenable<unknown> {
  // The Remote variant takes its query only as an options object (a string is dropped).
  if (vscode.env.remoteName) {
    return vscode.commands.executeCommand("workbench.action.openRemoteSettings", { query: id });
  }
  return vscode.commands.executeCommand("workbench.action.openSettings", id);
}

/** A server text in VS Code's words, with "Open Settings" when it names a setting. */
export function notify(type: MessageType, message: string, ...extra: string[]): Promise<string | undefined> {
  return notifyWith(type, message, undefined, ...extra);
}

/** The same, worded from the failure's structured `data` (a JSON-RPC error's, a message's). */
export async function notifyWith(
  type: MessageType,
  message: string,
  data: ErrorData | undefined,
  ...extra: string[]
): Promise<string | undefined> {
  const said = vscodeWords(message, data);
  const buttons = said.setting ? [OPEN_SETTINGS, ...extra] : extra;
  const pick = await shower(type)(plainText(said.text), ...buttons.map((title) => ({ title })));
  if (pick?.title === OPEN_SETTINGS && said.setting) await openSetting(said.setting);
  return pick?.title;
}

/** Where the server's "run N ended" message (its `data`) goes: into that run's end notification. */
export type RunErrorSink = (runId: number, ended: ErrorData) => void;

type Show = (message: string, ...items: MessageActionItem[]) => Thenable<MessageActionItem | undefined>;

function shower(type: MessageType): Show {
  if (type === MessageType.Error) return vscode.window.showErrorMessage;
  if (type === MessageType.Warning) return vscode.window.showWarningMessage;
  return vscode.window.showInformationMessage;
}

/** `window/showMessage`: a notification of the message as plain text, in VS Code's words;
 * a run's error is kept for its end notification (one notification per run end). */
export function showMessage(params: ShowMessageParams & { data?: ErrorData }, runError?: RunErrorSink): void {
  const ended = runEndedMessage(params.data);
  if (ended !== undefined && runError !== undefined) {
    runError(ended.runId, ended);
    return;
  }
  void notifyWith(params.type, params.message, params.data);
}

/** `window/showMessageRequest`: the same, with the server's buttons; the answer is the
 * button the user chose (undefined when the notification is dismissed). */
export function showMessageRequest(params: ShowMessageRequestParams): Thenable<MessageActionItem | undefined> {
  return shower(params.type)(plainText(params.message), ...(params.actions ?? []));
}

/** Middleware: a progress title or message is plain text before vscode-languageclient
 * shows it (it shows the params object it passed us, so the fields are replaced in place). */
export const plainProgress: Middleware["handleWorkDoneProgress"] = (token, params, next) => {
  if ("title" in params && typeof params.title === "string") params.title = plainText(params.title);
  if ("message" in params && typeof params.message === "string") params.message = plainText(params.message);
  next(token, params);
};

/** Our handlers for the client's messages (call before `client.start()`). */
export function handleMessages(client: LanguageClient, runError: RunErrorSink): void {
  client.onNotification(ShowMessageNotification.type, (p: ShowMessageParams) => showMessage(p, runError));
  client.onRequest(ShowMessageRequest.type, showMessageRequest);
}
