import assert from "node:assert/strict";
import { test } from "node:test";
import type { TraceRun } from "../protocol";
import { runHtml, runsHtml, shellHtml } from "../traceHtml";

const hostile = `<img src=x onerror="alert(1)">`;

test("the shell: a strict CSP, scripts only with the nonce", () => {
  const html = shellHtml({ nonce: "abc123", cspSource: "vscode-resource:" });
  assert.match(html, /default-src 'none'/);
  assert.match(html, /script-src 'nonce-abc123'/);
  assert.equal(html.match(/<script nonce="abc123">/g)?.length, 1);
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.doesNotMatch(html, /style="/, "inline style attributes would be blocked by the CSP");
});

test("runs list: newest first as given, running runs say so, goals escaped", () => {
  const html = runsHtml(
    [
      { runId: 2, goal: hostile, workspace: "/ws", outcome: null, steps: 1, spentTokens: 1200 },
      { runId: 1, goal: "fix it", workspace: "/ws", outcome: "step_cap_reached", steps: 100, spentTokens: 2_000_000 },
    ],
    1,
  );
  assert.ok(html.indexOf('data-run="2"') < html.indexOf('data-run="1"'));
  assert.match(html, /#2<\/strong> running/);
  assert.match(html, /class="run-item selected" data-run="1"/);
  assert.match(html, /step cap reached · 100 steps · 2M tokens/);
  assert.ok(!html.includes(hostile));
  assert.match(runsHtml([]), /No runs in the store yet/);
});

test("a run: header, summary, files, chart and a row per step; store text escaped", () => {
  const trace: TraceRun = {
    run: {
      runId: 3,
      goal: hostile,
      workspace: "/ws",
      outcome: "finished",
      steps: 2,
      spentTokens: 5000,
      summary: hostile,
      filesChanged: ["a.py", hostile],
    },
    steps: [
      {
        step: 2,
        estTokens: 2000,
        contextCeiling: 24_000,
        reportedPromptTokens: 2000,
        cachedPromptTokens: 1000,
        toolCalls: [{ name: "edit_file", arguments: {} }],
      },
      { step: 1, estTokens: 1000, contextCeiling: 24_000, decision: "<b>thinking</b>" },
    ],
  };
  const html = runHtml(trace);
  assert.match(html, /<h1>Run 3 · finished<\/h1>/);
  assert.match(html, /<svg class="chart"/);
  assert.equal(html.match(/<tr class="step" data-step="\d"/g)?.length, 2);
  assert.ok(html.indexOf('<tr class="step" data-step="1"') < html.indexOf('<tr class="step" data-step="2"'));
  assert.match(html, /<td>50%<\/td>/, "cached share of step 2");
  assert.match(html, /&lt;b&gt;thinking&lt;\/b&gt;/, "decision escaped once");
  assert.ok(!html.includes(hostile) && !html.includes("&amp;lt;"));
});

test("a run without steps, and without the newer fields", () => {
  const html = runHtml({
    run: { runId: 4, goal: "g", workspace: "/ws", outcome: null, steps: 0, spentTokens: 0 },
    steps: [],
  });
  assert.match(html, /Run 4 · running/);
  assert.match(html, /No step recorded yet/);
  assert.doesNotMatch(html, /Changed:|No files changed/);
});
