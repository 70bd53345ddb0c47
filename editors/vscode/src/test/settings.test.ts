import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULTS, serverSettings, type SettingKey } from "../settings";

function reader(values: Partial<Record<SettingKey, unknown>>): (key: SettingKey) => unknown {
  // As VS Code's config.get: the user's value, else the contributed default.
  return (key) => (key in values ? values[key] : DEFAULTS[key]);
}

test("defaults: the SPEC §2 numbers, no provider or store (the server's env and defaults apply)", () => {
  assert.deepEqual(serverSettings(reader({}), true), {
    provider: {},
    tokenBudget: 2_000_000,
    maxSteps: 100,
    contextBudget: { maxTokens: 24_000, share: 0.5, lowWater: 0.6 },
    contextWire: "transcript",
    trusted: true,
  });
});

test("every setting maps to its camelCase place; blanks are left out", () => {
  const got = serverSettings(
    reader({
      serverPath: "/x/harness-lsp",
      storePath: " ~/h.db ",
      "provider.name": "anthropic",
      "provider.model": "claude",
      "provider.baseUrl": "http://127.0.0.1:9/v1",
      "provider.apiKeyEnv": "",
      tokenBudget: 500,
      maxSteps: 7,
      "contextBudget.maxTokens": 1000,
      "contextBudget.share": 0.25,
      "contextBudget.lowWater": 0.9,
      contextWire: "flat",
    }),
    false,
  );
  assert.deepEqual(got, {
    provider: { name: "anthropic", model: "claude", baseUrl: "http://127.0.0.1:9/v1" },
    storePath: "~/h.db",
    tokenBudget: 500,
    maxSteps: 7,
    contextBudget: { maxTokens: 1000, share: 0.25, lowWater: 0.9 },
    contextWire: "flat",
    trusted: false,
  });
  assert.ok(!("serverPath" in got), "serverPath is the extension's, not the server's");
});

test("a bad value is passed as is: the server names the field and uses its default", () => {
  const got = serverSettings(reader({ tokenBudget: "lots", "contextBudget.share": 7 }), true);
  assert.equal(got.tokenBudget, "lots");
  assert.equal(got.contextBudget.share, 7);
});

test("an unset value (a reader without defaults) falls back to the SPEC default", () => {
  const got = serverSettings(() => undefined, true);
  assert.equal(got.tokenBudget, 2_000_000);
  assert.equal(got.contextWire, "transcript");
});

test("with Workspace Trust turned off, `trusted` is left out: the user's trusted folders decide", () => {
  const got = serverSettings(reader({}), undefined);
  assert.equal("trusted" in got, false);
  assert.equal(serverSettings(reader({}), false).trusted, false);
});
