/**
 * What the agent remembers, for the operator (SPEC §4, §10): Show Memory (a QuickPick of
 * notes with copy, pin/unpin and delete buttons), Clear Memory (modal), Add Memory Note.
 */
import * as vscode from "vscode";
import type { HarnessClient } from "./client";
import { folderArg, pickFolder } from "./folders";
import { exact, noteRow, oneLine, plural } from "./format";
import { pickText, plainText } from "./plainText";
import { Cmd, type MemoryWriteResult, type Note, type Scope } from "./protocol";

interface NoteItem extends vscode.QuickPickItem {
  note?: Note;
}

const COPY: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("copy"), tooltip: "Copy value" };
const PIN: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon("pin"),
  tooltip: "Pin (the agent cannot change it)",
};
const UNPIN: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("pinned"), tooltip: "Unpin" };
const DELETE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Delete" };

export class Memory {
  constructor(
    private readonly client: HarnessClient,
    private readonly changed: () => void,
  ) {}

  private list(folder: vscode.WorkspaceFolder, scope: Scope): Promise<Note[]> {
    return this.client.command<Note[]>(Cmd.memoryList, { scope, workspaceFolder: folderArg(folder) });
  }

  private async items(folder: vscode.WorkspaceFolder): Promise<NoteItem[]> {
    const [workspace, global] = await Promise.all([this.list(folder, "workspace"), this.list(folder, "global")]);
    const rows = (notes: Note[]): NoteItem[] =>
      notes.map((note) => ({ ...noteRow(note), note, buttons: [COPY, note.pinned ? UNPIN : PIN, DELETE] }));
    const out: NoteItem[] = [];
    if (workspace.length) {
      out.push({ label: folder.name, kind: vscode.QuickPickItemKind.Separator }, ...rows(workspace));
    }
    if (global.length) out.push({ label: "global", kind: vscode.QuickPickItemKind.Separator }, ...rows(global));
    return out;
  }

  async show(): Promise<void> {
    const folder = await pickFolder("Whose memory?");
    if (!folder) return;
    const pick = vscode.window.createQuickPick<NoteItem>();
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    pick.ignoreFocusOut = true;
    const refresh = async (title?: string): Promise<void> => {
      pick.busy = true;
      const items = await this.items(folder);
      const count = items.filter((i) => i.note).length;
      pick.items = items;
      pick.title = pickText(title ?? `Harness Memory · ${folder.name} · ${plural(count, "note")}`);
      pick.placeholder = count
        ? "Filter notes · Enter copies a value · buttons: copy, pin/unpin, delete"
        : "No notes yet: the agent writes them with `remember`; Harness: Add Memory Note adds yours.";
      pick.busy = false;
    };
    const act = async (note: Note, button: vscode.QuickInputButton): Promise<string> => {
      const args = { key: note.key, scope: note.scope, workspaceFolder: folderArg(folder) };
      if (button === COPY) {
        await vscode.env.clipboard.writeText(note.value);
        return `Copied the value of ${note.key}`;
      }
      if (button === DELETE) {
        await this.client.command(Cmd.memoryDelete, args);
        this.changed();
        return `Deleted ${note.key}`;
      }
      await this.client.command(Cmd.memoryPin, { ...args, pinned: button === PIN });
      return button === PIN ? `Pinned ${note.key}` : `Unpinned ${note.key}`;
    };
    const run = (work: () => Promise<string | undefined>): void => {
      work()
        .then((title) => refresh(title))
        .catch((error: unknown) => {
          pick.busy = false;
          void vscode.window.showErrorMessage(
            plainText(`Harness: ${error instanceof Error ? error.message : String(error)}`),
          );
        });
    };
    pick.onDidTriggerItemButton((e) => {
      const note = e.item.note;
      if (note) run(() => act(note, e.button));
    });
    pick.onDidAccept(() => {
      const note = pick.selectedItems[0]?.note;
      if (note) run(() => act(note, COPY));
    });
    pick.onDidHide(() => pick.dispose());
    pick.busy = true;
    pick.show();
    try {
      await refresh();
    } catch (error) {
      pick.hide();
      throw error;
    }
  }

  async clear(): Promise<void> {
    const folder = await pickFolder("Clear whose memory?");
    if (!folder) return;
    const [workspace, global] = await Promise.all([this.list(folder, "workspace"), this.list(folder, "global")]);
    if (workspace.length === 0 && global.length === 0) {
      void vscode.window.showInformationMessage(`Harness: no notes to clear for ${folder.name}.`);
      return;
    }
    const clearWorkspace = `Clear ${plural(workspace.length, "Workspace Note")}`;
    const clearGlobal = `Clear ${plural(global.length, "Global Note")}`;
    const buttons = [...(workspace.length ? [clearWorkspace] : []), ...(global.length ? [clearGlobal] : [])];
    const pinned = [...workspace, ...global].filter((n) => n.pinned).length;
    const pick = await vscode.window.showWarningMessage(
      `Delete the agent's notes for ${folder.name}?`,
      {
        modal: true,
        detail:
          `${plural(workspace.length, "note")} for this workspace, ${plural(global.length, "global note")} (every workspace recalls those).` +
          (pinned ? ` Pinned notes go too (${exact(pinned)}).` : "") +
          " This cannot be undone.",
      },
      ...buttons,
    );
    if (pick === undefined) return;
    const scope: Scope = pick === clearGlobal ? "global" : "workspace";
    const { deleted } = await this.client.command<{ deleted: number }>(Cmd.memoryClear, {
      scope,
      workspaceFolder: folderArg(folder),
    });
    this.changed();
    void vscode.window.showInformationMessage(`Harness: deleted ${plural(deleted, "note")} (${scope}).`);
  }

  async add(): Promise<void> {
    const folder = await pickFolder("Add a note to whose memory?");
    if (!folder) return;
    const key = await vscode.window.showInputBox({
      title: "Harness: Add Memory Note (1/2)",
      prompt: "Key: a short name for the note (writing a key again replaces its note)",
      placeHolder: "e.g. test-command",
      ignoreFocusOut: true,
      validateInput: (text) => (text.trim() ? undefined : "The key cannot be empty."),
    });
    if (!key?.trim()) return;
    const value = await vscode.window.showInputBox({
      title: "Harness: Add Memory Note (2/2)",
      prompt: `What the agent should know under ${key.trim()}`,
      placeHolder: "e.g. run the tests with `make test`, never plain pytest",
      ignoreFocusOut: true,
      validateInput: (text) => (text.trim() ? undefined : "The note cannot be empty."),
    });
    if (!value?.trim()) return;
    const result = await this.client.command<MemoryWriteResult>(Cmd.memoryWrite, {
      key: key.trim(),
      value,
      kind: "decision",
      workspaceFolder: folderArg(folder),
    });
    this.changed();
    const notes = [`Harness: ${result.replaced ? "replaced" : "saved"} the note ${result.note.key}.`];
    if (result.truncated) notes.push("It was cut to the longest a note may be.");
    if (result.evicted?.length) {
      notes.push(`To stay under the caps, ${result.evicted.map((n) => n.key).join(", ")} went.`);
    }
    for (const s of result.similar ?? []) notes.push(`It overlaps ${s.key}: “${oneLine(s.value, 80)}”.`);
    const warn = Boolean(result.truncated || result.evicted?.length || result.similar?.length);
    const show = warn ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(plainText(notes.join(" ")));
  }
}
