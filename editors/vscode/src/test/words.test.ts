import assert from "node:assert/strict";
import { test } from "node:test";
import { endNotice } from "../format";
import { runEndedMessage, settingTitle, vscodeWords } from "../words";

test("a setting as the Settings editor names it", () => {
  assert.equal(settingTitle("provider.baseUrl"), "Harness › Provider: Base Url");
  assert.equal(settingTitle("contextBudget.maxTokens"), "Harness › Context Budget: Max Tokens");
  assert.equal(settingTitle("tokenBudget"), "Harness: Token Budget");
});

test("server texts in VS Code's words, from their data: settings, commands; never CLI flags", () => {
  const key = vscodeWords(
    "no API key for openai: set HARNESS_API_KEY or OPENAI_API_KEY (or point the setting provider.baseUrl at a server that needs none)",
    { kind: "harness", command: "harness.run", setting: "provider.baseUrl", missing: "apiKey" },
  );
  assert.doesNotMatch(key.text, /the setting provider\.baseUrl/);
  assert.match(key.text, /Harness: Set API Key/);
  assert.match(key.text, /Harness › Provider: Base Url/);
  assert.equal(key.setting, "harness.provider.baseUrl");

  const bad = vscodeWords(
    "harness: invalid setting `contextBudget.share`: Input should be less than or equal to 1 (from didChangeConfiguration); using the default",
    {
      kind: "invalidSetting",
      setting: "contextBudget.share",
      problem: "Input should be less than or equal to 1",
      source: "didChangeConfiguration",
      refusesRuns: false,
    },
  );
  assert.equal(
    bad.text,
    "Harness: the setting Harness › Context Budget: Share is invalid: Input should be less than or equal to 1; using the default",
  );
  assert.equal(bad.setting, "harness.contextBudget.share");

  const busy = vscodeWords("run 3 is already in progress in /ws; wait for it to finish or cancel it (harness.cancel)", {
    kind: "conflict",
    command: "harness.run",
    runId: 3,
  });
  assert.equal(
    busy.text,
    "run 3 is already in progress in /ws; wait for it to finish or cancel it (Harness: Cancel Run)",
  );
  assert.equal(busy.setting, undefined);
  // Without data, a text is shown as it came: nothing is read out of the sentence.
  const plain = "harness: invalid setting `x`: y (from initializationOptions); using the default";
  assert.deepEqual(vscodeWords(plain), { text: plain });
});

test("the server's 'run N ended' message is known by its data (it joins the end notification)", () => {
  const data = { kind: "runEnded", runId: 4, outcome: "provider_error", error: "connection: cannot connect (refused)" };
  assert.deepEqual(runEndedMessage(data), data);
  assert.equal(runEndedMessage({ kind: "invalidSetting", setting: "x" }), undefined);
  assert.equal(runEndedMessage(undefined), undefined);
});

test("the end notification counts denials, refusals and failures; dollars when priced", () => {
  const n = endNotice({
    runId: 7,
    outcome: "finished",
    steps: 1,
    spentTokens: 1200,
    denied: 1,
    refused: 2,
    failed: 0,
    costUsd: 0.0123,
    filesChanged: [],
  });
  assert.equal(
    n.text,
    "Harness run 7 finished after 1 step and 1,200 tokens ($0.0123). 1 denied, 2 refused. No files changed.",
  );
  assert.equal(n.severity, "warning");
});

test("provider down: one notice, the reason in VS Code's words, with Open Settings", () => {
  const n = endNotice(
    { runId: 2, outcome: "provider_error", steps: 0, spentTokens: 0 },
    {
      kind: "runEnded",
      runId: 2,
      outcome: "provider_error",
      error:
        "connection: cannot connect (All connection attempts failed); check the base URL and that the server is reachable",
      failure: "connection",
      detail: "cannot connect (All connection attempts failed); check the base URL and that the server is reachable",
      setting: "provider.baseUrl",
    },
  );
  assert.doesNotMatch(n.text, /after 0 steps/);
  assert.match(n.text, /^Harness run 2 could not reach the model: cannot connect/);
  assert.match(n.text, /Harness › Provider: Base Url/);
  assert.equal(n.setting, "harness.provider.baseUrl");
  assert.equal(n.severity, "error");
});
