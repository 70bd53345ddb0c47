/// <reference lib="dom" />
/**
 * The prompt box's completion list (webview side): `@` files, symbols and `@problems`, and
 * `/` prompts, as the extension answers them; arrows move, Enter or Tab picks, Escape
 * closes. The texts are set as text (never HTML): they come from the repository.
 */
import { mentionAt, replaceMention, slashAt } from "./mentions";

export interface Completion {
  id: string;
  label: string;
  /** What the box says after the pick (`@name`), when not the label. */
  name?: string;
  detail?: string;
}

export interface Completions {
  seq: number;
  trigger: "@" | "/";
  items: Completion[];
}

type Post = (message: Record<string, unknown>) => void;

export class CompletionList {
  private seq = 0;
  private trigger: "@" | "/" | undefined;
  private items: Completion[] = [];
  private sel = 0;

  constructor(
    private readonly box: HTMLTextAreaElement,
    private readonly list: HTMLElement,
    private readonly post: Post,
  ) {
    list.addEventListener("mousedown", (e) => {
      const li = (e.target as HTMLElement).closest<HTMLElement>("li[data-index]");
      if (!li) return;
      e.preventDefault();
      this.pick(Number(li.dataset.index));
    });
  }

  get open(): boolean {
    return !this.list.hidden;
  }

  /** After each input: ask for completions when the caret is in a mention or a `/name`. */
  typed(): void {
    const caret = this.box.selectionStart;
    const slash = slashAt(this.box.value, caret);
    const at = slash === undefined ? mentionAt(this.box.value, caret) : undefined;
    if (slash === undefined && at === undefined) return this.close();
    this.trigger = slash !== undefined ? "/" : "@";
    this.post({ action: "complete", trigger: this.trigger, query: slash ?? at?.query ?? "", seq: String(++this.seq) });
  }

  /** The extension's answer (an older one than the last asked is dropped). */
  show(c: Completions): void {
    if (c.seq !== this.seq || c.trigger !== this.trigger) return;
    this.items = c.items;
    this.sel = 0;
    this.draw();
  }

  /** Keys while the list is open; true when the key was the list's. */
  key(e: KeyboardEvent): boolean {
    if (!this.open) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const n = this.items.length;
      this.sel = (this.sel + (e.key === "ArrowDown" ? 1 : n - 1)) % Math.max(1, n);
      this.draw();
    } else if (e.key === "Enter" || e.key === "Tab") {
      if (this.items.length === 0) return false;
      this.pick(this.sel);
    } else if (e.key === "Escape") {
      this.close();
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  }

  close(): void {
    this.list.hidden = true;
    this.items = [];
  }

  private draw(): void {
    this.list.replaceChildren(
      ...this.items.map((it, i) => {
        const li = document.createElement("li");
        li.dataset.index = String(i);
        li.setAttribute("role", "option");
        if (i === this.sel) li.className = "sel";
        li.textContent = it.label;
        if (it.detail) {
          const d = document.createElement("span");
          d.className = "detail";
          d.textContent = it.detail;
          li.append(d);
        }
        return li;
      }),
    );
    if (this.items.length === 0) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = this.trigger === "/" ? "No prompt of that name" : "No file or symbol of that name";
      this.list.replaceChildren(li);
    }
    this.list.hidden = false;
    this.list.querySelector("li.sel")?.scrollIntoView({ block: "nearest" });
  }

  private pick(i: number): void {
    const it = this.items[i];
    if (!it) return;
    const caret = this.box.selectionStart;
    if (this.trigger === "/") {
      this.box.value = `/${it.id} `;
      this.box.setSelectionRange(this.box.value.length, this.box.value.length);
    } else {
      const at = mentionAt(this.box.value, caret);
      if (at) {
        const left = replaceMention(this.box.value, at, caret, it.name ?? it.label);
        this.box.value = left.text;
        this.box.setSelectionRange(left.caret, left.caret);
      }
    }
    this.post({ action: "pick", trigger: this.trigger, id: it.id });
    this.close();
    this.box.focus();
  }
}
