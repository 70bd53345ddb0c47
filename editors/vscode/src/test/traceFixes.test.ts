import assert from "node:assert/strict";
import { test } from "node:test";
import { toolLabel } from "../format";
import { stepDocument } from "../stepDocument";
import { runHtml, runsHtml } from "../traceHtml";

test("a tool call is named with what it touched", () => {
  assert.equal(
    toolLabel({ name: "edit_file", arguments: { path: "src/a.py", old: "x", new: "y" } }),
    "edit_file src/a.py",
  );
  assert.equal(toolLabel({ name: "exec", arguments: { argv: ["python", "-m", "pytest"] } }), "exec python -m pytest");
  assert.equal(toolLabel({ name: "search", arguments: { pattern: "def add" } }), "search def add");
  assert.equal(toolLabel({ name: "finish", arguments: {} }), "finish");
});

test("trace: the tools column names paths; '1 step'; the legend tells stubbed from re-read", () => {
  const html = runHtml({
    run: { runId: 1, goal: "g", workspace: "/ws", outcome: "finished", steps: 1, spentTokens: 10 },
    steps: [
      {
        step: 1,
        estTokens: 10,
        contextCeiling: 100,
        stubbed: 1,
        reread: 1,
        toolCalls: [
          { name: "edit_file", arguments: { path: "a.py" } },
          { name: "edit_file", arguments: { path: "b.py" } },
        ],
      },
    ],
  });
  assert.match(html, /<td>edit_file a\.py, edit_file b\.py<\/td>/);
  assert.match(html, /1 step ·/);
  assert.doesNotMatch(html, /1 steps/);
  assert.match(
    runsHtml([{ runId: 1, goal: "g", workspace: "/ws", outcome: "finished", steps: 1, spentTokens: 5 }]),
    /1 step ·/,
  );
  // Each legend entry draws the chart's own mark: a square for stubbed, a triangle for re-read.
  assert.match(html, /<svg class="swatch-mark"[^>]*><rect class="mark stubbed"/);
  assert.match(html, /<svg class="swatch-mark"[^>]*><path class="mark reread"/);
});

test("the step document opens on the results; the prompt as sent follows", () => {
  const doc = stepDocument({
    runId: 3,
    step: 2,
    prompt: [{ role: "system", content: "SYSTEM PROMPT" }],
    result: "RESULT TEXT",
    toolCalls: [{ name: "read_file", arguments: { path: "a.py" } }],
  });
  assert.ok(doc.indexOf("RESULT TEXT") < doc.indexOf("SYSTEM PROMPT"));
  assert.ok(doc.indexOf("read_file a.py") < doc.indexOf("RESULT TEXT"));
  assert.match(doc, /^# Harness run 3 · step 2\n\nIn this document: tool calls, results, then the prompt as sent/);
});
