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

type Show = (message: string, ...items: MessageActionItem[]) => Thenable<MessageActionItem | undefined>;

function shower(type: MessageType): Show {
  if (type === MessageType.Error) return vscode.window.showErrorMessage;
  if (type === MessageType.Warning) return vscode.window.showWarningMessage;
  return vscode.window.showInformationMessage;
}

/** `window/showMessage`: a notification of the message as plain text. */
export function showMessage(params: ShowMessageParams): void {
  void shower(params.type)(plainText(params.message));
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
export function handleMessages(client: LanguageClient): void {
  client.onNotification(ShowMessageNotification.type, showMessage);
  client.onRequest(ShowMessageRequest.type, showMessageRequest);
}
