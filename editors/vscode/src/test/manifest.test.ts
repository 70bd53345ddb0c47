/** package.json against SPEC §10: command ids and titles, settings and defaults, activation. */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Cmd } from "../protocol";
import { COST_CAPS, DEFAULTS, USER_ONLY } from "../settings";

const root = path.resolve(__dirname, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  name: string;
  publisher: string;
  main: string;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  contributes: {
    commands: { command: string; title: string; category: string }[];
    configuration: { properties: Record<string, { type: string; default: unknown; markdownDescription?: string }> };
  };
};

const SPEC_COMMANDS: Record<string, string> = {
  "harness.runTask": "Harness: Run Task",
  "harness.cancelRun": "Harness: Cancel Run",
  "harness.showMemory": "Harness: Show Memory",
  "harness.clearMemory": "Harness: Clear Memory",
  "harness.addMemoryNote": "Harness: Add Memory Note",
  "harness.showTrace": "Harness: Show Trace",
  "harness.revertRun": "Harness: Revert Run",
  "harness.trustFolder": "Harness: Trust This Folder",
  "harness.setApiKey": "Harness: Set API Key",
  "harness.newConversation": "Harness: New Conversation",
  // Review in the editor (issue 36): hunkCommands.ts, attach.ts.
  "harness.review.keepHunk": "Harness: Keep Change Under Cursor",
  "harness.review.undoHunk": "Harness: Undo Change Under Cursor",
  "harness.review.keepFile": "Harness: Keep This File's Changes",
  "harness.review.undoFile": "Harness: Undo This File's Changes…",
  "harness.review.keepAll": "Harness: Keep All Changes of the Conversation",
  "harness.review.undoAll": "Harness: Undo All Changes of the Conversation…",
  "harness.attachAndFocus": "Harness: Attach to the Conversation",
  "harness.focusPrompt": "Harness: Focus the Prompt Box",
};

test("the panel: a webview view harness.conversation in its own activity-bar container Harness", () => {
  const c = pkg.contributes as unknown as {
    viewsContainers: { activitybar: { id: string; title: string; icon: string }[] };
    views: Record<string, { type: string; id: string }[]>;
  };
  const box = c.viewsContainers.activitybar.find((v) => v.title === "Harness");
  assert.ok(box && fs.existsSync(path.join(root, box.icon)), "the container and its icon");
  assert.deepEqual(
    c.views[box.id].map((v) => [v.type, v.id]),
    [["webview", "harness.conversation"]],
  );
});

test("harness.verify: an argv array, empty by default, a workspace's only when trusted", () => {
  const prop = pkg.contributes.configuration.properties["harness.verify"] as unknown as {
    type: string;
    items: { type: string };
  };
  assert.equal(prop.type, "array");
  assert.equal(prop.items.type, "string");
  assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes("harness.verify"));
});

test("extension id harness-lsp.harness, activated on startup, bundled entry point", () => {
  assert.equal(`${pkg.publisher}.${pkg.name}`, "harness-lsp.harness");
  assert.deepEqual(pkg.activationEvents, ["onStartupFinished"]);
  assert.equal(pkg.main, "./dist/extension.js");
});

test("the commands of SPEC §10, titled as the palette shows them", () => {
  const got = Object.fromEntries(pkg.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
  assert.deepEqual(got, SPEC_COMMANDS);
});

test("no contributed command id is one of the server's (the language client registers those)", () => {
  // Cmd is generated from the server's declaration (server/protocol, `make protocol`).
  const serverIds = new Set<string>(Object.values(Cmd));
  assert.ok(serverIds.has("harness.run") && serverIds.has("harness.memory.list"), "read the server's table");
  for (const c of pkg.contributes.commands) {
    assert.ok(!serverIds.has(c.command), `${c.command} clashes with a server command`);
  }
});

test("every setting of SPEC §10 is contributed, typed, described, with the SPEC default", () => {
  const props = pkg.contributes.configuration.properties;
  assert.deepEqual(
    Object.keys(props).sort(),
    Object.keys(DEFAULTS)
      .map((k) => `harness.${k}`)
      .sort(),
  );
  for (const [key, def] of Object.entries(DEFAULTS)) {
    const prop = props[`harness.${key}`];
    assert.deepEqual(prop.default, def, key);
    assert.ok(prop.type, `${key} has a type`);
    assert.ok((prop.markdownDescription ?? "").length > 20, `${key} is described`);
  }
  assert.equal(props["harness.tokenBudget"].type, "integer");
  assert.equal(props["harness.contextBudget.share"].type, "number");
});

test("issue 20 items 3 and 7: user-only settings are machine-scoped; Restricted Mode keeps the caps out", () => {
  const props = pkg.contributes.configuration.properties as Record<string, { scope?: string; maximum?: number }>;
  const machine = Object.keys(props).filter((k) => props[k].scope === "machine");
  assert.deepEqual(machine.sort(), [...USER_ONLY].map((k) => `harness.${k}`).sort());
  const restricted = new Set(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations);
  for (const key of [...USER_ONLY, ...COST_CAPS]) assert.ok(restricted.has(`harness.${key}`), key);
  assert.equal(pkg.capabilities.untrustedWorkspaces.supported, "limited");
  assert.equal(props["harness.tokenBudget"].maximum, 1_000_000_000);
});
