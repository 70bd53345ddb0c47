/**
 * What the prompt box attaches (issue 36): chips for the current selection, for `@` files
 * (the workspace's, less what .gitignore and `files.exclude` leave out), `@` symbols (VS
 * Code's workspace symbol provider) and `@problems` (the errors and warnings VS Code shows,
 * sent in the prompt's text); each chip names its exact lines and has ×.
 */
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { escapeHtml as h } from "./html";
import { chipLabel, selectedLines } from "./mentions";
import type { Completion } from "./panelWebComplete";

export interface ContextRef {
  uri: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  label: string;
}

const PROBLEMS = "problems";
const MAX_FILES = 12;
const MAX_SYMBOLS = 10;
const MAX_PROBLEMS = 50;

/** `paths` less those git ignores (`git check-ignore`; all of them when git cannot say). */
function notIgnored(cwd: string, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return Promise.resolve(paths);
  return new Promise((resolve) => {
    const child = execFile("git", ["check-ignore", "--stdin"], { cwd, timeout: 3000 }, (error, stdout) => {
      // exit 1: none ignored; another failure (no git, not a repository): keep them all
      const code = (error as { code?: number } | null)?.code;
      if (error && code !== 1) return resolve(paths);
      const ignored = new Set(stdout.split("\n").filter(Boolean));
      resolve(paths.filter((p) => !ignored.has(p)));
    });
    child.stdin?.end(paths.join("\n") + "\n");
  });
}

function globEscape(s: string): string {
  return s.replace(/[[\]{}*?!]/g, (c) => `[${c}]`);
}

export class Attachments {
  readonly refs: ContextRef[] = [];
  private problems = false;
  private offered = new Map<string, ContextRef | typeof PROBLEMS>();

  /** The `@` list for `query`: @problems, files, then symbols. */
  async complete(folder: vscode.WorkspaceFolder, query: string): Promise<Completion[]> {
    this.offered = new Map();
    const out: Completion[] = [];
    if (PROBLEMS.startsWith(query.toLowerCase())) {
      this.offered.set(PROBLEMS, PROBLEMS);
      out.push({ id: PROBLEMS, label: "@problems", detail: "the errors and warnings VS Code shows" });
    }
    const pattern = new vscode.RelativePattern(folder, query ? `**/*${globEscape(query)}*` : "**/*");
    const found = await vscode.workspace.findFiles(pattern, undefined, MAX_FILES * 4);
    const rel = found.map((u) => vscode.workspace.asRelativePath(u, false));
    const kept = await notIgnored(folder.uri.fsPath, rel);
    for (const path of kept.sort((a, b) => a.length - b.length || a.localeCompare(b)).slice(0, MAX_FILES)) {
      const uri = vscode.Uri.joinPath(folder.uri, path).toString();
      this.offered.set(`f:${path}`, { uri, label: path });
      out.push({ id: `f:${path}`, label: path, detail: "file" });
    }
    if (query.length >= 2) out.push(...(await this.symbols(query)));
    return out;
  }

  private async symbols(query: string): Promise<Completion[]> {
    const found =
      (await vscode.commands.executeCommand<vscode.SymbolInformation[]>(
        "vscode.executeWorkspaceSymbolProvider",
        query,
      )) ?? [];
    return found.slice(0, MAX_SYMBOLS).map((s, i) => {
      const path = vscode.workspace.asRelativePath(s.location.uri, false);
      const r = s.location.range;
      const lines = selectedLines(r.start, r.end);
      const id = `s:${i}:${s.name}`;
      this.offered.set(id, {
        uri: s.location.uri.toString(),
        range: { start: r.start, end: r.end },
        label: `${s.name.replace(/^#+\s*/, "")} (${chipLabel(path, lines)})`,
      });
      const name = s.name.replace(/^#+\s*/, ""); // a Markdown heading's symbol is "## Title"
      return {
        id,
        label: s.name,
        name,
        detail: `${vscode.SymbolKind[s.kind] ?? "symbol"} · ${chipLabel(path, lines)}`,
      };
    });
  }

  /** The user picked `id` from the list: it becomes a chip. */
  pick(id: string): void {
    const it = this.offered.get(id);
    if (it === PROBLEMS) this.problems = true;
    else if (it && !this.refs.some((r) => r.uri === it.uri && r.label === it.label)) this.refs.push(it);
  }

  /** The current selection (or file) as a chip with its exact lines. */
  attachEditor(editor: vscode.TextEditor): void {
    const uri = editor.document.uri;
    const name = vscode.workspace.asRelativePath(uri);
    const sel = editor.selection;
    if (sel.isEmpty) {
      this.refs.push({ uri: uri.toString(), label: name });
      return;
    }
    const range = { start: sel.start, end: sel.end };
    this.refs.push({ uri: uri.toString(), range, label: chipLabel(name, selectedLines(sel.start, sel.end)) });
  }

  remove(index: number): void {
    if (index === this.refs.length && this.problems) this.problems = false;
    else if (index >= 0 && index < this.refs.length) this.refs.splice(index, 1);
  }

  labels(): string[] {
    return [...this.refs.map((r) => r.label), ...(this.problems ? ["@problems"] : [])];
  }

  html(): string {
    return this.labels()
      .map(
        (label, i) =>
          `<span class="chip"><span class="label">${h(label)}</span><button data-action="unattach" data-index="${i}" title="Remove" aria-label="Remove ${h(label)}">×</button></span>`,
      )
      .join("");
  }

  /** `harness.run`'s `context`. */
  context(): { uri: string; range?: ContextRef["range"] }[] {
    return this.refs.map(({ uri, range }) => (range ? { uri, range } : { uri }));
  }

  /** The goal with the problems appended, when @problems is attached. */
  goal(text: string): string {
    if (!this.problems) return text;
    const rows: string[] = [];
    for (const [uri, diags] of vscode.languages.getDiagnostics()) {
      for (const d of diags) {
        if (d.severity > vscode.DiagnosticSeverity.Warning) continue;
        const sev = d.severity === vscode.DiagnosticSeverity.Error ? "error" : "warning";
        const path = vscode.workspace.asRelativePath(uri, false);
        rows.push(`${path}:${d.range.start.line + 1}:${d.range.start.character + 1} ${sev}: ${d.message}`);
      }
    }
    const shown = rows.slice(0, MAX_PROBLEMS);
    const more = rows.length > shown.length ? `\n(${rows.length - shown.length} more not listed)` : "";
    return `${text}\n\nThe problems VS Code shows:\n${shown.join("\n") || "(none)"}${more}`;
  }

  clear(): void {
    this.refs.length = 0;
    this.problems = false;
  }
}
