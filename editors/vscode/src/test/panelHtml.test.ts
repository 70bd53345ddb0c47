import assert from "node:assert/strict";
import { test } from "node:test";
import { Conversation } from "../conversation";
import { mergeChanges } from "../conversation";
import { budgetHtml, changesHtml, conversationHtml, historyHtml, panelShell } from "../panelHtml";
import { VERIFY_CALL, type ApproveParams, type RunEvent } from "../protocol";

const base = { runId: 4, conversationId: 4 };
let seq = 0;
const ev = (e: Record<string, unknown>): RunEvent => ({ ...base, seq: ++seq, step: 1, ...e }) as unknown as RunEvent;

function ask(callId: string, act: string, more: Partial<ApproveParams> = {}): ApproveParams {
  return { runId: 4, step: 2, callId, act, target: "rm -rf x", options: ["allow", "allowRun", "deny"], ...more };
}

function sample(): Conversation {
  const c = new Conversation();
  for (const e of [
    ev({ kind: "user", text: "Fix <add>" }),
    ev({ kind: "text", delta: "Reading **calc.py** " }),
    ev({ kind: "text", delta: "[x](command:evil) now." }),
    ev({ kind: "toolCall", callId: "c1", name: "read_file", arguments: { path: "calc.py" }, target: "calc.py" }),
    ev({ kind: "toolResult", callId: "c1", status: "ok", summary: "def add(a, b):" }),
    ev({ kind: "toolCall", step: 2, callId: "c2", name: "exec", arguments: { argv: ["rm", "-rf", "x"] } }),
    ev({ kind: "approval", step: 2, callId: "c2", act: "exec", target: "rm -rf x", command: "rm -rf x" }),
  ]) {
    c.apply(e);
  }
  return c;
}

test("events build the conversation: words joined per step, rows, approvals; replays ignored", () => {
  const c = sample();
  assert.equal(c.id, 4);
  assert.deepEqual(
    c.items.map((i) => i.kind),
    ["user", "text", "tool", "tool"],
  );
  assert.equal(c.row(4, "c2")?.status, "waiting");
  assert.equal(c.apply({ ...base, seq: 1, step: 1, kind: "user", text: "again" }), false);
  assert.equal(c.running, 4);
});

test("the conversation's HTML: words as safe Markdown, rows with ✓/✗/waiting and why, inline approval", () => {
  const c = sample();
  const pending = new Map([["4:c2", ask("c2", "exec", { command: "rm -rf x", filesWritten: ["calc.py"] })]]);
  let html = conversationHtml(c, pending);
  assert.match(html, /class="turn user"[^]*Fix &lt;add&gt;/);
  assert.match(html, /<strong>calc\.py<\/strong>/);
  assert.doesNotMatch(html, /data-href="command:/);
  assert.match(html, /<details class="tool st-ok"[^]*read_file<\/span> <span class="target">calc\.py<\/span>[^]*✓/);
  assert.match(html, /<pre class="result">def add\(a, b\):<\/pre>/);
  assert.match(html, /class="tool st-waiting"[^]*exec[^]*rm -rf x[^]*waiting for you/);
  for (const d of ["allow", "allowRun", "deny"]) {
    assert.match(html, new RegExp(`data-action="approve" data-decision="${d}"`));
  }
  assert.match(html, /<pre class="command">rm -rf x<\/pre>/);
  assert.match(html, /files this run wrote: calc\.py/);

  c.apply(ev({ kind: "approval", step: 2, callId: "c2", act: "exec", target: "rm -rf x", decision: "deny" }));
  c.apply(ev({ kind: "toolResult", step: 2, callId: "c2", status: "denied", why: "denied by the user" }));
  c.apply(
    ev({
      kind: "end",
      outcome: "finished",
      steps: 2,
      spentTokens: 900,
      denied: 1,
      refused: 0,
      failed: 0,
      costUsd: 0.004,
    }),
  );
  html = conversationHtml(c, new Map());
  assert.doesNotMatch(html, /data-action="approve"/);
  assert.match(html, /class="tool st-denied"[^]*✗ denied[^]*denied by the user/);
  assert.match(html, /<div class="end[^"]*">Run 4 finished · 2 steps · 900 tokens · \$0\.004 · 1 denied<\/div>/);
  assert.equal(c.running, undefined);
});

test("a write's approval offers its diff in VS Code's diff editor", () => {
  const c = new Conversation();
  c.apply(ev({ kind: "toolCall", callId: "w1", name: "write_file", arguments: { path: "a.py" } }));
  c.apply(
    ev({ kind: "approval", callId: "w1", act: "write", target: "a.py", diff: "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y" }),
  );
  const html = conversationHtml(c, new Map([["4:w1", ask("w1", "write", { diff: "-x\n+y" })]]));
  assert.match(html, /data-action="approvalDiff" data-run="4" data-call="w1"/);
});

test("budget on top: spent/budget, the last request against its ceiling as a bar, cached share, dollars", () => {
  const html = budgetHtml({
    runId: 4,
    step: 3,
    maxSteps: 100,
    spentTokens: 48_210,
    tokenBudget: 2_000_000,
    requestTokens: 9_120,
    contextCeiling: 24_000,
    reportedPromptTokens: 9_000,
    cachedPromptTokens: 4_500,
    costUsd: 0.0312,
  });
  assert.match(html, /48\.2k\/2M tokens/);
  assert.match(html, /\$0\.0312/);
  assert.match(html, /request 9\.1k\/24k/);
  assert.match(html, /<rect class="used" x="0" y="0" width="38"/);
  assert.match(html, /cached 50%/);
  assert.doesNotMatch(budgetHtml(undefined), /\$/);
});

test("changes and history lists; texts escaped", () => {
  const ch = changesHtml([{ path: "<a>.py", status: "modified", before: "x", after: "y" }]);
  assert.match(ch, /data-action="diff" data-path="&lt;a&gt;\.py"/);
  assert.match(ch, /data-action="revertFile"/);
  assert.match(ch, /data-action="revertAll"/);
  const hist = historyHtml(
    [{ conversationId: 9, goal: "<b>x</b>", runs: 2, lastOutcome: "finished", spentTokens: 1000 }],
    9,
  );
  assert.match(hist, /data-action="openConversation" data-conversation="9"/);
  assert.match(hist, /&lt;b&gt;x&lt;\/b&gt;/);
});

test("the shell: strict CSP, one nonce script from the extension, no inline styles", () => {
  const html = panelShell({ nonce: "n0nce", cspSource: "vscode-webview:", script: "vscode-webview://x/dist/panel.js" });
  assert.match(html, /default-src 'none'/);
  assert.match(html, /script-src 'nonce-n0nce'/);
  assert.match(html, /img-src vscode-webview:;/);
  assert.match(html, /<script nonce="n0nce" src="vscode-webview:\/\/x\/dist\/panel\.js"><\/script>/);
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.doesNotMatch(html, /style="/);
  assert.match(
    html,
    /data-action="attach"[^]*<span id="verify"><\/span>[^]*<textarea|<textarea[^]*data-action="attach"[^]*<span id="verify">/,
  );
});

test("an approval with no row yet (no events from this server) is still drawn, answerable", () => {
  const html = conversationHtml(new Conversation(), new Map([["4:z", ask("z", "exec")]]));
  assert.match(html, /data-action="approve" data-decision="deny" data-run="4" data-call="z"/);
});

test("a conversation's changes from its runs: the first text before, the last status", () => {
  const merged = mergeChanges([
    [{ path: "a.py", status: "modified", before: "v0", after: "v1" }],
    [
      { path: "a.py", status: "modified", before: "v1", after: "v2" },
      { path: "b.py", status: "added", before: null, after: "x" },
    ],
  ]);
  assert.deepEqual(
    merged.map((c) => [c.path, c.status, c.before, c.after]),
    [
      ["a.py", "modified", "v0", "v2"],
      ["b.py", "added", null, "x"],
    ],
  );
  // Reverted to its text before the conversation: no longer a change.
  assert.deepEqual(
    mergeChanges([
      [{ path: "a.py", status: "modified", before: "v0", after: "v0" }],
      [{ path: "a.py", status: "modified", before: "v1", after: "v0" }],
    ]),
    [],
  );
});

test("the model's last words are drawn once: from the events, or from the run's end", () => {
  const c = new Conversation();
  c.apply(ev({ runId: 8, conversationId: 8, kind: "text", delta: "All done." }));
  c.finished({ runId: 8, outcome: "finished", steps: 1, spentTokens: 5, summary: "All done." });
  assert.equal(conversationHtml(c, new Map()).match(/All done\./g)?.length, 1);
  const bare = new Conversation();
  bare.userTurn(9, "go");
  bare.finished({ runId: 9, outcome: "finished", steps: 1, spentTokens: 5, summary: "Done **now**." });
  assert.match(conversationHtml(bare, new Map()), /Done <strong>now<\/strong>\./);
});

test("the end line says how the run's check went and with which command, as the server reported it", () => {
  const c = new Conversation();
  const at = (runId: number, e: Record<string, unknown>): boolean => c.apply(ev({ runId, conversationId: 20, ...e }));
  const check = (runId: number, target: string, result?: Record<string, unknown>): void => {
    at(runId, { kind: "toolCall", callId: VERIFY_CALL, name: "verify", arguments: {}, target });
    if (result) at(runId, { kind: "toolResult", callId: VERIFY_CALL, ...result });
  };
  const end = (runId: number, outcome: string): boolean =>
    at(runId, { kind: "end", outcome, steps: 2, spentTokens: 10 });
  // A failed check the model then fixed: the last one counts.
  check(20, "python3 -c 'import calc'", { status: "failed", why: "failed (exit 1)", summary: "verify: exit 1" });
  check(20, "python3 -c 'import calc'", { status: "ok", summary: "verify: exit 0" });
  end(20, "success");
  check(21, "pytest -q", { status: "failed", why: "failed (exit 2)", summary: "verify: exit 2" });
  end(21, "verification_failed");
  check(22, "<img src=x>", { status: "refused", why: "refused (user: make*)", summary: "verify" });
  end(22, "step_cap_reached");
  check(23, "pytest");
  end(23, "cancelled");
  end(24, "finished");
  const lines = conversationHtml(c, new Map()).match(/<div class="end[^"]*">[^<]*<\/div>/g) ?? [];
  assert.deepEqual(lines, [
    `<div class="end">Run 20 success · 2 steps · 10 tokens · check passed: python3 -c &#39;import calc&#39;</div>`,
    `<div class="end bad">Run 21 verification failed · 2 steps · 10 tokens · check failed (exit 2): pytest -q</div>`,
    `<div class="end bad">Run 22 step cap reached · 2 steps · 10 tokens · check refused (user: make*): &lt;img src=x&gt;</div>`,
    `<div class="end bad">Run 23 cancelled · 2 steps · 10 tokens · check did not finish: pytest</div>`,
    `<div class="end">Run 24 finished · 2 steps · 10 tokens</div>`,
  ]);
});

test("the header: the run in progress and its waiting approval, before any budget", () => {
  const waiting = ask("c9", "exec", { runId: 7, target: "make test" });
  assert.match(budgetHtml(undefined, 7), /Run 7 in progress…/);
  assert.match(
    budgetHtml(undefined, 7, waiting),
    /data-action="showApproval">Run 7 waits for your approval: exec make test/,
  );
  assert.doesNotMatch(budgetHtml(undefined, 7), /No run yet/);
  assert.match(budgetHtml(undefined), /No run yet in this conversation/);
  assert.doesNotMatch(budgetHtml(undefined, undefined, undefined, true), /No run yet/);
});

test("history rows carry their dates; a conversation with a finish is not 'running'", () => {
  const html = historyHtml(
    [
      {
        conversationId: 3,
        goal: "g",
        runs: 2,
        lastOutcome: null,
        spentTokens: 10,
        startedAt: "2026-12-07T11:02:03+00:00",
        finishedAt: "2026-12-07T11:03:00+00:00",
      },
    ],
    3,
  );
  assert.match(html, /2 runs · ended · 10 tokens · 2026-12-07 11:02/);
});
