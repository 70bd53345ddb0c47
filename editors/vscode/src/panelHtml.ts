/**
 * The conversation panel's HTML (SPEC §11): the shell with its strict CSP, and the parts the
 * extension re-renders as state changes — budget, conversation, changes, history. Every
 * text that came from the model, the repository or the store is escaped; the model's words
 * go through `renderMarkdown`. The webview script only swaps these in and reports clicks
 * (`data-action`). Pure, unit-tested.
 */
import type { Conversation, Item, ToolRow, UserTurn } from "./conversation";
import { cachedShare, dollars, exact, oneLine, outcomeShort, percent, plural, short, callCounts } from "./format";
import { escapeHtml as h } from "./html";
import { renderMarkdown } from "./markdown";
import { rowHtml } from "./panelRows";
export { panelShell } from "./panelShell";
import {
  VERIFY_CALL,
  type ApproveParams,
  type Budget,
  type ConversationRow,
  type FileChange,
  type RunFinished,
} from "./protocol";

export function askKey(runId: number, callId: string): string {
  return `${runId}:${callId}`;
}

function approvalCard(a: ApproveParams): string {
  const ids = `data-run="${a.runId}" data-call="${h(a.callId)}"`;
  const parts = [
    `<div class="approval" ${ids} tabindex="0" aria-label="${h(`Allow ${a.act} ${oneLine(a.target, 200)}? A allow, R allow for this run, D deny`)}"><div class="ask">Allow <b>${h(a.act)}</b> ${h(oneLine(a.target, 200))}?</div>`,
  ];
  if (a.command) parts.push(`<pre class="command">${h(a.command)}</pre>`);
  if (a.filesWritten?.length) {
    parts.push(`<div class="muted">files this run wrote: ${h(a.filesWritten.join(", "))}</div>`);
  }
  if (a.diff) {
    parts.push(`<button class="link" data-action="approvalDiff" ${ids}>Show the change in the diff editor</button>`);
  }
  parts.push(
    `<div class="buttons">` +
      `<button data-action="approve" data-decision="allow" ${ids}>Allow</button>` +
      `<button class="secondary" data-action="approve" data-decision="allowRun" ${ids}>Allow for this run</button>` +
      `<button class="secondary" data-action="approve" data-decision="deny" ${ids}>Deny</button></div>` +
      `<div class="keys">Keys: A allow · R allow for this run · D deny · Enter allows, Escape denies</div></div>`,
  );
  return parts.join("");
}

function toolHtml(r: ToolRow, ask: ApproveParams | undefined): string {
  return rowHtml(r, askKey(r.runId, r.callId), ask ? approvalCard(ask) : "", ask !== undefined);
}

function userHtml(it: UserTurn, turn: number | undefined, canRestore: boolean): string {
  const who = it.steer ? "You, while it worked" : it.mode === "plan" ? "You · plan" : "You";
  const chips = it.attached?.length
    ? `<div class="chips">${it.attached.map((a) => `<span class="chip">${h(a)}</span>`).join("")}</div>`
    : "";
  const restore =
    turn !== undefined && canRestore
      ? `<button class="link restore" data-action="restore" data-turn="${turn}" title="Put the files back as they were before this turn">Restore to here</button>`
      : "";
  return `<div class="turn user"><div class="who">${who}${restore}</div><div class="body">${h(it.text)}</div>${chips}</div>`;
}

/** A run's end: outcome, steps, tokens, dollars, calls that did not go, and how its check
 * went (`check`: the run's last verification row, as the server reported it). */
export function endLine(f: RunFinished, check?: ToolRow): string {
  const bits = [`Run ${f.runId} ${outcomeShort(f.outcome)}`, plural(f.steps, "step"), `${exact(f.spentTokens)} tokens`];
  if (typeof f.costUsd === "number") bits.push(dollars(f.costUsd));
  const counts = callCounts(f);
  if (counts) bits.push(counts);
  if (check) bits.push(`check ${checkWords(check)}: ${oneLine(check.target, 120)}`);
  return bits.join(" · ");
}

function checkWords(r: ToolRow): string {
  if (r.status === "ok") return "passed";
  if (r.status === "running" || r.status === "waiting") return "did not finish";
  return oneLine(r.why || r.status, 80);
}

function itemHtml(it: Item, pending: ReadonlyMap<string, ApproveParams>, c: Conversation): string {
  switch (it.kind) {
    case "user": {
      const turn = it.steer ? undefined : c.turns().indexOf(it) + 1;
      return userHtml(it, turn, c.running === undefined);
    }
    case "text":
      return `<div class="turn words md">${renderMarkdown(it.text)}</div>`;
    case "tool":
      return toolHtml(it, pending.get(askKey(it.runId, it.callId)));
    case "end": {
      const good = it.outcome === "success" || it.outcome === "finished";
      return `<div class="end${good ? "" : " bad"}">${h(endLine(it, c.row(it.runId, VERIFY_CALL)))}</div>`;
    }
  }
}

/** What the first run needs, as the panel knows it. */
export interface Setup {
  /** The provider the server will use ("openai" when the setting is empty). */
  provider: string;
  /** A key is stored, or none is needed (a custom base URL), or the environment may have one. */
  keyKnown: boolean;
}

function emptyHtml(setup: Setup | undefined): string {
  const intro = `<p class="muted empty">Ask the agent to do something in this workspace. Its words, each tool call and what it changed appear here.</p>`;
  if (setup === undefined || setup.keyKnown) return intro;
  return (
    `<div class="setup"><p><b>Two steps before the first run:</b></p><ol>` +
    `<li>The model provider: <b>${h(setup.provider)}</b> <button class="link" data-action="openSetting" data-setting="harness.provider.name">Choose provider…</button></li>` +
    `<li>Its API key (kept in VS Code's secret storage): <button data-action="setApiKey">Set API Key for ${h(setup.provider)}</button></li>` +
    `</ol><p class="muted">A local server (vLLM, llama.cpp, Ollama) needs no key: set its address in <button class="link" data-action="openSetting" data-setting="harness.provider.baseUrl">Provider: Base Url</button>.</p></div>` +
    intro
  );
}

export function conversationHtml(c: Conversation, pending: ReadonlyMap<string, ApproveParams>, setup?: Setup): string {
  const out = c.items.map((it) => itemHtml(it, pending, c));
  for (const ask of pending.values()) {
    if (c.row(ask.runId, ask.callId) === undefined) out.push(approvalCard(ask));
  }
  if (out.length === 0) return emptyHtml(setup);
  return out.join("");
}

/** The last request against the ceiling, as a bar (SVG attributes: the CSP allows no inline style). */
function bar(used: number, ceiling: number): string {
  const pct = ceiling > 0 ? Math.min(100, Math.round((used / ceiling) * 100)) : 0;
  const cls = pct >= 90 ? "used hot" : "used";
  return (
    `<svg class="bar" viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label="last request ${pct}% of the ceiling">` +
    `<rect class="ceiling" x="0" y="0" width="100" height="6"/><rect class="${cls}" x="0" y="0" width="${pct}" height="6"/></svg>`
  );
}

/** The header: the conversation's run in progress (and its waiting approval), and its budget. */
export function budgetHtml(b: Budget | undefined, running?: number, waiting?: ApproveParams, ran = false): string {
  const state = headerState(running, waiting);
  if (b === undefined || (running !== undefined && b.runId !== running)) {
    const idle = running === undefined && !ran ? "No run yet in this conversation." : "";
    return `<div class="budget">${state}${idle ? `<span class="muted">${idle}</span>` : ""}</div>`;
  }
  return state + budgetBody(b);
}

function headerState(running: number | undefined, waiting: ApproveParams | undefined): string {
  if (waiting !== undefined) {
    return `<div class="state waiting"><button class="link" data-action="showApproval">Run ${waiting.runId} waits for your approval: ${h(oneLine(`${waiting.act} ${waiting.target}`, 80))}</button></div>`;
  }
  return running === undefined ? "" : `<div class="state">Run ${running} in progress…</div>`;
}

function budgetBody(b: Budget): string {
  const cost = typeof b.costUsd === "number" ? ` · ${dollars(b.costUsd)}` : "";
  const share = cachedShare(b);
  const cached = share === undefined ? "" : ` · cached ${percent(share)}`;
  return (
    `<div class="budget" title="${h(`Spent ${exact(b.spentTokens)} of ${exact(b.tokenBudget)} tokens; last request ${exact(b.requestTokens)} of a ${exact(b.contextCeiling)} ceiling`)}">` +
    `<div class="line"><b>${short(b.spentTokens)}/${short(b.tokenBudget)} tokens</b>${cost} · step ${b.step}/${exact(b.maxSteps)}</div>` +
    `<div class="line">request ${short(b.requestTokens)}/${short(b.contextCeiling)}${cached}</div>${bar(b.requestTokens, b.contextCeiling)}</div>`
  );
}

export function changesHtml(files: readonly FileChange[]): string {
  if (files.length === 0) return "";
  const rows = files.map(
    (f) =>
      `<li><button class="link" data-action="diff" data-path="${h(f.path)}" title="Open the diff">${h(f.path)}</button>` +
      ` <span class="muted">${h(f.status)}</span>` +
      ` <button class="icon-btn" data-action="revertFile" data-path="${h(f.path)}" title="Revert this file">↶</button></li>`,
  );
  return (
    `<div class="section-head">Changes (${files.length}) <button class="link" data-action="revertAll">Revert all</button></div>` +
    `<ul class="changes">${rows.join("")}</ul>`
  );
}

export function historyHtml(rows: readonly ConversationRow[], open: number | undefined): string {
  if (rows.length === 0) return `<p class="muted">No conversations in this workspace yet.</p>`;
  const items = rows.map((r) => {
    const cls = r.conversationId === open ? "conv open" : "conv";
    const outcome = r.lastOutcome ? outcomeShort(r.lastOutcome) : r.finishedAt ? "ended" : "running";
    const when = r.startedAt ? ` · ${h(dateShort(r.startedAt))}` : "";
    return (
      `<li><button class="${cls}" data-action="openConversation" data-conversation="${r.conversationId}">` +
      `<span class="goal">${h(oneLine(r.goal, 90))}</span>` +
      `<span class="muted">${plural(r.runs, "run")} · ${h(outcome)} · ${short(r.spentTokens)} tokens${when}</span></button></li>`
    );
  });
  return `<ul class="history">${items.join("")}</ul>`;
}

/** "2026-12-07T11:02:03+00:00" → "2026-12-07 11:02" (the store's UTC time, as written). */
export function dateShort(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}
