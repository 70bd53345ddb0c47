/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The conversation panel's script (runs in the webview; bundled to dist/panel.js). It only
 * shows what the extension sends (HTML the extension built and escaped) and reports the
 * user's clicks, keys and prompts back: no fetch, no eval, nothing remote. It follows the
 * end of the conversation (`Follower`: decided after layout), completes `@` and `/`, and
 * answers a focused approval from the keyboard.
 */
import { Follower } from "./panelFollow";
import { CompletionList, type Completions } from "./panelWebComplete";

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
  model?: string;
  running?: boolean;
  /** While a run goes on: what Enter does ("" when no run goes on). */
  steer?: string;
  /** An error in plain words, as HTML the extension built ("" clears it). */
  error?: string;
  focusKey?: string;
  /** An approval arrived: focus its card (A / R / D, Enter, Escape answer it). */
  focusApproval?: string;
  focusPrompt?: boolean;
  completions?: Completions;
  /** A prompt that could not be sent, put back in the box. */
  draft?: string;
}

const vscode = acquireVsCodeApi();
const $ = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;
const box = $("prompt") as HTMLTextAreaElement;
const conv = $("conv");
const newActivity = $("newActivity");
const post = (m: Record<string, unknown>): void => vscode.postMessage(m);
const completions = new CompletionList(box, $("complete"), post);

const saved = vscode.getState() as { draft?: string } | undefined;
if (saved?.draft) box.value = saved.draft;

// -- following the end ---------------------------------------------------------------------

const follow = new Follower();
const metrics = (): { scrollTop: number; scrollHeight: number; clientHeight: number } => ({
  scrollTop: conv.scrollTop,
  scrollHeight: conv.scrollHeight,
  clientHeight: conv.clientHeight,
});

/** After layout: scroll to the end when following, light the button when not. */
function settle(): void {
  const to = follow.afterLayout(metrics());
  if (to !== undefined) conv.scrollTop = to;
  newActivity.hidden = !follow.newActivity;
}

let settling = false;
function settleSoon(): void {
  if (settling) return;
  settling = true;
  requestAnimationFrame(() => {
    settling = false;
    settle();
  });
}

conv.addEventListener("scroll", () => {
  follow.scrolled(metrics());
  newActivity.hidden = !follow.newActivity;
});
// The area itself changes size (the Changes list, the attached chips, the error below it).
new ResizeObserver(settleSoon).observe(conv);
newActivity.addEventListener("click", () => {
  follow.jumpToEnd();
  settle();
});

function set(id: string, html: string | undefined): void {
  if (html !== undefined) $(id).innerHTML = html;
}

/** Replace the conversation, keeping which rows the user opened. */
function renderConv(html: string): void {
  const open = new Set([...conv.querySelectorAll("details[open]")].map((d) => (d as HTMLElement).dataset.key));
  // A focused approval card keeps the focus through the redraw (its keys answer it).
  const card = document.activeElement?.closest<HTMLElement>(".approval");
  if (card) cardToFocus = `${card.dataset.run}:${card.dataset.call}`;
  conv.innerHTML = html;
  if (cardToFocus) focusCard(cardToFocus);
  for (const d of conv.querySelectorAll("details")) {
    if (open.has((d as HTMLElement).dataset.key)) d.setAttribute("open", "");
    d.addEventListener("toggle", settleSoon);
  }
  follow.contentChanged();
  settleSoon();
}

/** The approval card to focus once it is drawn (and to keep focused through redraws). */
let cardToFocus: string | undefined;

function focusCard(key: string): void {
  cardToFocus = key;
  const [run, call] = key.split(/:(.*)/s);
  const card = conv.querySelector<HTMLElement>(
    `.approval[data-run="${CSS.escape(run)}"][data-call="${CSS.escape(call ?? "")}"]`,
  );
  if (!card) return;
  card.scrollIntoView({ block: "nearest" });
  card.focus();
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
  set("model", m.model);
  set("error", m.error);
  if (m.running !== undefined) $("stop").hidden = !m.running;
  if (m.steer !== undefined) {
    $("steer").hidden = m.steer === "";
    $("steerWhat").textContent = m.steer;
    $("send").textContent = m.steer === "" ? "Send" : "Queue";
  }
  if (m.completions) completions.show(m.completions);
  if (m.draft !== undefined && !box.value) {
    box.value = m.draft;
    vscode.setState({ draft: m.draft });
  }
  if (m.focusKey) {
    const row = conv.querySelector(`details[data-key="${CSS.escape(m.focusKey)}"]`);
    row?.scrollIntoView({ block: "center" });
    focusCard(m.focusKey);
  }
  if (m.focusApproval) focusCard(m.focusApproval);
  if (m.focusPrompt) box.focus();
});

/** The user's words drawn at once, until the extension's next drawing (with the run's turn,
 * or without it and an error when the run could not start) replaces them. */
function drawPending(text: string): void {
  const turn = document.createElement("div");
  turn.className = "turn user pending";
  const who = document.createElement("div");
  who.className = "who";
  who.textContent = "You · sending…";
  const body = document.createElement("div");
  body.className = "body";
  body.textContent = text;
  turn.append(who, body);
  conv.querySelector(".empty, .setup")?.remove();
  conv.append(turn);
}

function send(): void {
  const text = box.value;
  if (!text.trim()) return;
  const steer = document.querySelector<HTMLInputElement>('input[name="steer"]:checked')?.value;
  const plan = ($("plan") as HTMLInputElement).checked;
  post({ action: "send", text, mode: plan ? "plan" : "code", steer: steer ?? "queue" });
  drawPending(text);
  box.value = "";
  vscode.setState({ draft: "" });
  completions.close();
  follow.jumpToEnd(); // the user's new message is drawn at the end: go there
  settleSoon();
}

box.addEventListener("keydown", (e) => {
  if (completions.key(e)) return;
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send();
  }
});
box.addEventListener("input", () => {
  vscode.setState({ draft: box.value });
  completions.typed();
});
box.addEventListener("blur", () => setTimeout(() => completions.close(), 150));

const KEYS: Record<string, string> = { a: "allow", enter: "allow", r: "allowRun", d: "deny", escape: "deny" };

document.addEventListener("keydown", (e) => {
  const card = (e.target as HTMLElement).closest<HTMLElement>(".approval");
  if (!card || e.target !== card || e.ctrlKey || e.metaKey || e.altKey) return;
  const decision = KEYS[e.key.toLowerCase()];
  if (!decision) return;
  e.preventDefault();
  post({ action: "approve", run: card.dataset.run, call: card.dataset.call, decision });
  cardToFocus = undefined;
  box.focus();
});

document.addEventListener("click", (e) => {
  const target = e.target as HTMLElement;
  const link = target.closest<HTMLElement>("a.ext");
  if (link) {
    e.preventDefault();
    post({ action: "openLink", href: link.dataset.href });
    return;
  }
  const el = target.closest<HTMLElement>("[data-action]");
  if (!el) return;
  e.preventDefault();
  const action = el.dataset.action;
  if (action === "approve") cardToFocus = undefined;
  if (action === "send") return send();
  if (action === "toggleHistory") {
    const box = $("history");
    box.hidden = !box.hidden;
    post({ action: "history", open: box.hidden ? "" : "1" });
    return;
  }
  if (action === "openConversation") $("history").hidden = true;
  post({ ...el.dataset });
});

post({ action: "ready" });

export {};
