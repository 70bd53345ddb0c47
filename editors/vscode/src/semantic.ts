/**
 * The editor back end of the semantic tools (SPEC §14): the client declares
 * `experimental.harness.semantic` and answers the server's `harness/semantic` requests from
 * VS Code's own language providers (references, definition, rename, document symbols,
 * diagnostics) — the language servers and extensions the user already has, with their
 * view of unsaved buffers. The document is opened first (the rename provider fails on one
 * that is not open). Positions are UTF-16 on both sides, as VS Code counts. A rename is
 * only computed here: the server applies the WorkspaceEdit itself, through its own write
 * act. Anything VS Code cannot answer is `{unavailable}`: the server then asks its
 * headless language servers.
 */
import * as vscode from "vscode";
import type { BaseLanguageClient, StaticFeature } from "vscode-languageclient";

/** Server → client request for a client declaring `experimental.harness.semantic`. */
import { SEMANTIC } from "./protocol";
export { SEMANTIC };

type Method = "references" | "definition" | "rename" | "symbols" | "diagnostics";

interface WirePosition {
  line: number;
  character: number;
}

export interface SemanticParams {
  method: Method;
  textDocument: { uri: string };
  position?: WirePosition;
  newName?: string;
  waitMs?: number;
}

type Answer = { unavailable: string } | ({ server: string } & Record<string, unknown>);

const feature: StaticFeature = {
  fillClientCapabilities(capabilities) {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    const harness = (experimental.harness ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, harness: { ...harness, semantic: true } };
  },
  initialize() {},
  getState: () => ({ kind: "static" }),
  clear() {},
};

/** Declare the capability and answer `harness/semantic` (register after any feature that
 * replaces `experimental.harness`: this one adds to it). */
export function registerSemantic(client: BaseLanguageClient): void {
  client.registerFeature(feature);
  tracking ??= track(); // once per window: a restarted client keeps the same order
  client.onRequest(SEMANTIC, (params: SemanticParams) => answer(params));
}

export async function answer(params: SemanticParams): Promise<Answer> {
  try {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(params.textDocument.uri));
    const server = `vscode (${doc.languageId})`;
    const found = await ask(doc, params);
    return found === undefined
      ? { unavailable: `VS Code has no ${params.method} answer for ${doc.languageId}` }
      : { server, ...found };
  } catch (err) {
    return { unavailable: err instanceof Error ? err.message : String(err) };
  }
}

async function ask(doc: vscode.TextDocument, params: SemanticParams): Promise<Record<string, unknown> | undefined> {
  const uri = doc.uri;
  const pos = params.position ? new vscode.Position(params.position.line, params.position.character) : undefined;
  switch (params.method) {
    case "references":
      return pos ? references(uri, pos) : undefined;
    case "definition":
      return pos ? definition(uri, pos) : undefined;
    case "rename":
      return pos && params.newName ? rename(uri, pos, params.newName) : undefined;
    case "symbols":
      return symbols(uri);
    case "diagnostics":
      // A document open but in no editor may not be reloaded yet after the harness wrote
      // the file: its diagnostics would be of the old text, so none rather than wrong ones.
      if (!(await reloaded(doc, params.waitMs ?? 0))) return undefined;
      return { diagnostics: await diagnostics(uri, params.waitMs ?? 0) };
    default:
      return undefined;
  }
}

async function definitions(uri: vscode.Uri, pos: vscode.Position): Promise<vscode.Location[]> {
  const found = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(
    "vscode.executeDefinitionProvider",
    uri,
    pos,
  );
  return (found ?? []).map((l) =>
    "targetUri" in l ? new vscode.Location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : l,
  );
}

async function definition(uri: vscode.Uri, pos: vscode.Position): Promise<Record<string, unknown> | undefined> {
  const found = await definitions(uri, pos);
  return found.length ? { locations: found.map(wireLocation) } : undefined;
}

/** Every reference, the definition first (the tool marks the first place as it). */
async function references(uri: vscode.Uri, pos: vscode.Position): Promise<Record<string, unknown> | undefined> {
  const found = await vscode.commands.executeCommand<vscode.Location[] | undefined>(
    "vscode.executeReferenceProvider",
    uri,
    pos,
  );
  if (!found || found.length === 0) return undefined; // no provider (yet): the server asks elsewhere
  const defs = await definitions(uri, pos);
  const isDef = (l: vscode.Location) =>
    defs.some((d) => d.uri.toString() === l.uri.toString() && d.range.intersection(l.range) !== undefined);
  const ordered = [...found.filter(isDef), ...found.filter((l) => !isDef(l))];
  return { locations: ordered.map(wireLocation) };
}

async function rename(
  uri: vscode.Uri,
  pos: vscode.Position,
  newName: string,
): Promise<Record<string, unknown> | undefined> {
  // prepareRename throws with the provider's reason when the place cannot be renamed.
  await vscode.commands.executeCommand("vscode.prepareRename", uri, pos);
  const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>(
    "vscode.executeDocumentRenameProvider",
    uri,
    pos,
    newName,
  );
  if (!edit) return undefined;
  const documentChanges = edit.entries().map(([file, edits]) => ({
    textDocument: { uri: file.toString(), version: null },
    edits: edits.map((e) => ({ range: wireRange(e.range), newText: e.newText })),
  }));
  return { edit: { documentChanges } };
}

async function symbols(uri: vscode.Uri): Promise<Record<string, unknown> | undefined> {
  const found = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>(
    "vscode.executeDocumentSymbolProvider",
    uri,
  );
  if (!found) return undefined;
  return { symbols: found.map((s) => ("location" in s ? wireSymbolInformation(s) : wireSymbol(s))) };
}

/** Whether `doc` holds the file's text on disk, waiting at most `waitMs` for VS Code to
 * reload it (it does so for a file shown in an editor; a hidden one may stay stale). */
async function reloaded(doc: vscode.TextDocument, waitMs: number): Promise<boolean> {
  const disk = new TextDecoder().decode(await vscode.workspace.fs.readFile(doc.uri));
  if (doc.getText() === disk) return true;
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => done(false), waitMs);
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document === doc && doc.getText() === disk) done(true);
    });
    function done(ok: boolean): void {
      clearTimeout(timer);
      sub.dispose();
      resolve(ok);
    }
  });
}

/** Per document, the order of its last text change and its last diagnostics change: when
 * the diagnostics are newer than the text they are current and answered at once. */
let tracking: vscode.Disposable[] | undefined;
const order = { next: 0, text: new Map<string, number>(), diagnostics: new Map<string, number>() };

function track(): vscode.Disposable[] {
  const mark = (map: Map<string, number>, uri: vscode.Uri) => map.set(uri.toString(), ++order.next);
  return [
    vscode.workspace.onDidOpenTextDocument((d) => mark(order.text, d.uri)),
    vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length && mark(order.text, e.document.uri)),
    vscode.languages.onDidChangeDiagnostics((e) => e.uris.forEach((u) => mark(order.diagnostics, u))),
  ];
}

const current = (key: string) => (order.diagnostics.get(key) ?? -1) > (order.text.get(key) ?? 0);

/** The document's diagnostics once they are newer than its text (a file the harness just
 * wrote is reloaded and re-checked by its providers), waiting at most `waitMs` (the
 * server's `diagnosticsWaitMs`). */
async function diagnostics(uri: vscode.Uri, waitMs: number): Promise<unknown[]> {
  const key = uri.toString();
  if (waitMs > 0 && !current(key)) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, waitMs);
      const sub = vscode.languages.onDidChangeDiagnostics(() => current(key) && done());
      function done(): void {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  }
  return vscode.languages.getDiagnostics(uri).map((d) => ({
    range: wireRange(d.range),
    severity: d.severity + 1, // VS Code counts from Error = 0, LSP from Error = 1
    message: d.message,
    source: d.source,
  }));
}

function wireRange(r: vscode.Range): { start: WirePosition; end: WirePosition } {
  return {
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  };
}

function wireLocation(l: vscode.Location): { uri: string; range: ReturnType<typeof wireRange> } {
  return { uri: l.uri.toString(), range: wireRange(l.range) };
}

/** VS Code's SymbolKind counts from File = 0, LSP's from File = 1. */
function wireSymbol(s: vscode.DocumentSymbol): Record<string, unknown> {
  return {
    name: s.name,
    kind: s.kind + 1,
    range: wireRange(s.range),
    selectionRange: wireRange(s.selectionRange),
    children: s.children.map(wireSymbol),
  };
}

function wireSymbolInformation(s: vscode.SymbolInformation): Record<string, unknown> {
  return { name: s.name, kind: s.kind + 1, location: wireLocation(s.location) };
}
