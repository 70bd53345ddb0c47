import assert from "node:assert/strict";
import { test } from "node:test";
import {
  budgetText,
  budgetTooltip,
  cachedShare,
  exact,
  fileList,
  idleText,
  isWarning,
  noteRow,
  oneLine,
  percent,
  runFinishedMessage,
  short,
} from "../format";
import type { Budget } from "../protocol";

const budget: Budget = {
  runId: 7,
  step: 3,
  maxSteps: 100,
  spentTokens: 48_210,
  tokenBudget: 2_000_000,
  requestTokens: 9_120,
  contextCeiling: 24_000,
  reportedPromptTokens: 9_310,
  cachedPromptTokens: 8_000,
  prefixChars: 31_220,
};

/** Each `[input, text]` case of `format`, asserted with the call it makes in the message. */
function formats<T>(format: (value: T) => string, cases: [T, string][]): void {
  for (const [value, text] of cases) {
    assert.equal(format(value), text, `${format.name}(${String(value)})`);
  }
}

test("short counts: the SPEC's example and the unit boundaries", () => {
  formats(short, [
    [0, "0"],
    [950, "950"],
    [999, "999"],
    [1000, "1k"],
    [9120, "9.1k"],
    [24_000, "24k"],
    [48_210, "48.2k"],
    [999_960, "1M"], // rounding up to 1000k becomes 1M
    [2_000_000, "2M"],
    [1_250_000, "1.3M"],
    [3_400_000_000, "3.4B"],
    [-1500, "-1.5k"],
    [Number.NaN, "?"],
  ]);
});

test("exact counts are grouped the same on every locale", () => {
  formats(exact, [
    [0, "0"],
    [999, "999"],
    [48_210, "48,210"],
    [2_000_000, "2,000,000"],
  ]);
  formats(percent, [
    [0.0241, "2.4%"],
    [0.856, "86%"],
    [0, "0%"],
  ]);
});

test("status bar text: spent/budget · request/ceiling, the outcome after the run", () => {
  assert.equal(budgetText(budget), "$(pulse) 48.2k/2M · 9.1k/24k");
  assert.equal(budgetText(budget, "step_cap_reached"), "$(pulse) 48.2k/2M · 9.1k/24k · step cap reached");
});

test("tooltip: exact figures and the cached share", () => {
  const tip = budgetTooltip(budget, "finished");
  assert.match(tip, /Spent 48,210 of 2,000,000 tokens \(2\.4%\)/);
  assert.match(tip, /Last request 9,120 tokens \(estimated\) against a ceiling of 24,000/);
  assert.match(tip, /Provider: 9,310 prompt tokens, 8,000 cached \(86%\)/);
  assert.match(tip, /Shared with the previous request: 31,220 chars/);
  assert.match(tip, /Outcome: finished/);
});

test("tooltip: the run's cache-priced cost against appending (issue 34)", () => {
  const tip = budgetTooltip({ ...budget, contextVsAppend: 0.8149 });
  assert.match(tip, /Context cost so far: 0\.81× what appending every result would cost \(cache-priced\)/);
  assert.doesNotMatch(budgetTooltip({ ...budget, contextVsAppend: null }), /Context cost/);
  assert.doesNotMatch(budgetTooltip(budget), /Context cost/);
});

test("tooltip without the fields an older server does not send", () => {
  const old: Budget = { ...budget, cachedPromptTokens: undefined, prefixChars: undefined };
  const tip = budgetTooltip(old);
  assert.match(tip, /9,310 prompt tokens, cached share not reported/);
  assert.doesNotMatch(tip, /Shared with the previous request/);
  assert.match(budgetTooltip({ ...old, reportedPromptTokens: null }), /prompt tokens not reported/);
  assert.equal(cachedShare({ reportedPromptTokens: 0, cachedPromptTokens: 0 }), undefined);
});

test("warning colour past 80% of the budget, not at it", () => {
  assert.equal(isWarning({ spentTokens: 1_600_000, tokenBudget: 2_000_000 }), false);
  assert.equal(isWarning({ spentTokens: 1_600_001, tokenBudget: 2_000_000 }), true);
  assert.equal(isWarning({ spentTokens: 5, tokenBudget: 0 }), false);
});

test("idle text counts workspace and global notes", () => {
  assert.equal(idleText(undefined), "$(pulse) harness");
  assert.equal(idleText({ workspace: 1, global: 0 }), "$(pulse) harness · 1 note");
  assert.equal(idleText({ workspace: 2, global: 1 }), "$(pulse) harness · 3 notes");
  assert.equal(idleText({ workspace: null, global: 0 }), "$(pulse) harness · 0 notes");
});

test("end-of-run message: outcome, steps, tokens, summary, files", () => {
  const text = runFinishedMessage({
    runId: 7,
    outcome: "finished",
    steps: 12,
    spentTokens: 48_210,
    summary: "Renamed the parser;\n tests pass.",
    filesChanged: ["src/a.py", "src/b.py"],
  });
  assert.equal(
    text,
    "Harness run 7 finished after 12 steps and 48,210 tokens. “Renamed the parser; tests pass.” Changed: src/a.py, src/b.py.",
  );
  assert.equal(
    runFinishedMessage({ runId: 1, outcome: "budget_exhausted", steps: 1, spentTokens: 10, filesChanged: [] }),
    "Harness run 1 ran out of token budget after 1 step and 10 tokens. No files changed.",
  );
  // An older server sends neither summary nor filesChanged.
  assert.equal(
    runFinishedMessage({ runId: 2, outcome: "new_outcome", steps: 2, spentTokens: 3 }),
    "Harness run 2 ended: new outcome after 2 steps and 3 tokens.",
  );
});

test("long lists and lines are cut visibly", () => {
  assert.equal(fileList(["a", "b", "c"], 2), "a, b and 1 more");
  assert.equal(oneLine("x".repeat(10), 5), "xxxx…");
  assert.equal(oneLine("  a\n\tb  "), "a b");
});

test("memory rows: key, kind, pin, run/step, scope", () => {
  const row = noteRow({
    key: "retries",
    value: "3 retries\nwith backoff",
    kind: "fact",
    pinned: true,
    scope: "workspace",
    runId: 7,
    step: 3,
  });
  assert.deepEqual(row, {
    label: "$(pinned) retries",
    description: "fact · pinned · run 7 step 3",
    detail: "3 retries with backoff",
  });
  const operator = noteRow({
    key: "k",
    value: "v",
    kind: "decision",
    pinned: false,
    scope: "global",
    runId: null,
    step: null,
  });
  assert.equal(operator.description, "decision · operator · global");
  assert.equal(operator.label, "$(note) k");
});
