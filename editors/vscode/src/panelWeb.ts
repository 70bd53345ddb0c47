/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The conversation panel's script (runs in the webview; bundled to dist/panel.js). It only
 * shows what the extension sends (HTML the extension built and escaped) and reports the
 * user's clicks and prompts back: no fetch, no eval, nothing remote.
 */

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface Render {
  type: "render";
  title?: string;
  budget?: string;
  conv?: string;
  changes?: string;
  history?: string;
  attached?: string;
  /** The Verify control (the check the next run uses). */
  verify?: string;
  running?: boolean;
  focusKey?: string;
  /** A prompt that could not be sent, put back in the box. */
  draft?: string;
  /** Put the caret in the prompt box (a code action attached something). */
  focusPrompt?: boolean;
}

const vscode = acquireVsCodeApi();
const $ = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;
const box = $("prompt") as HTMLTextAreaElement;
const conv = $("conv");

const saved = vscode.getState() as { draft?: string } | undefined;
if (saved?.draft) box.value = saved.draft;

function set(id: string, html: string | undefined): void {
  if (html !== undefined) $(id).innerHTML = html;
}

/** Replace the conversation, keeping which rows the user opened and the scroll (following
 * the end when the user was there). */
function renderConv(html: string): void {
  const open = new Set([...conv.querySelectorAll("details[open]")].map((d) => (d as HTMLElement).dataset.key));
  const atEnd = conv.scrollHeight - conv.scrollTop - conv.clientHeight < 30;
  conv.innerHTML = html;
  for (const d of conv.querySelectorAll("details")) {
    if (open.has((d as HTMLElement).dataset.key)) d.setAttribute("open", "");
  }
  if (atEnd) conv.scrollTop = conv.scrollHeight;
}

window.addEventListener("message", (event: MessageEvent<Render>) => {
  const m = event.data;
  if (m.type !== "render") return;
  if (m.title !== undefined) $("title").textContent = m.title;
  set("budget", m.budget);
  if (m.conv !== undefined) renderConv(m.conv);
  set("changes", m.changes);
  set("history", m.history);
  set("attached", m.attached);
  set("verify", m.verify);
  if (m.running !== undefined) $("stop").hidden = !m.running;
  if (m.draft !== undefined && !box.value) {
    box.value = m.draft;
    vscode.setState({ draft: m.draft });
  }
  if (m.focusPrompt) box.focus();
  if (m.focusKey) {
    const row = conv.querySelector(`details[data-key="${CSS.escape(m.focusKey)}"]`);
    row?.scrollIntoView({ block: "center" });
    (row?.querySelector("button") as HTMLElement | null)?.focus();
  }
});

function send(): void {
  const text = box.value;
  if (!text.trim()) return;
  vscode.postMessage({ action: "send", text });
  box.value = "";
  vscode.setState({ draft: "" });
}

box.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send();
  }
});
box.addEventListener("input", () => vscode.setState({ draft: box.value }));

document.addEventListener("click", (e) => {
  const target = e.target as HTMLElement;
  const link = target.closest<HTMLElement>("a.ext");
  if (link) {
    e.preventDefault();
    vscode.postMessage({ action: "openLink", href: link.dataset.href });
    return;
  }
  const el = target.closest<HTMLElement>("[data-action]");
  if (!el) return;
  e.preventDefault();
  const action = el.dataset.action;
  if (action === "send") return send();
  if (action === "toggleHistory") {
    const box = $("history");
    box.hidden = !box.hidden;
    if (!box.hidden) vscode.postMessage({ action: "history" });
    return;
  }
  if (action === "openConversation") $("history").hidden = true;
  vscode.postMessage({ ...el.dataset });
});

vscode.postMessage({ action: "ready" });

export {};
