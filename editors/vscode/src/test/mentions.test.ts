import assert from "node:assert/strict";
import { test } from "node:test";
import { chipLabel, mentionAt, replaceMention, parseSlash, promptList, selectedLines, slashAt } from "../mentions";

test("the mention the caret is in: after whitespace or at the start, never inside a word", () => {
  assert.deepEqual(mentionAt("fix @car", 8), { start: 4, query: "car" });
  assert.deepEqual(mentionAt("@", 1), { start: 0, query: "" });
  assert.deepEqual(mentionAt("see\n@problems", 13), { start: 4, query: "problems" });
  assert.equal(mentionAt("mail me@example.com", 19), undefined);
  assert.equal(mentionAt("fix @cart now", 13), undefined); // the caret is past it
  assert.deepEqual(replaceMention("fix @car please", { start: 4, query: "car" }, 8, "src/cart.py"), {
    text: "fix @src/cart.py please",
    caret: 17,
  });
  assert.deepEqual(replaceMention("@pro", { start: 0, query: "pro" }, 4, "@problems"), {
    text: "@problems ",
    caret: 10,
  });
});

test("slash commands: typed at the start; parsed with their arguments", () => {
  assert.equal(slashAt("/re", 3), "re");
  assert.equal(slashAt("/", 1), "");
  assert.equal(slashAt("/review the cart", 16), undefined);
  assert.equal(slashAt("a /re", 5), undefined);
  assert.deepEqual(parseSlash("/review the cart\nplease"), { name: "review", args: "the cart\nplease" });
  assert.deepEqual(parseSlash("/plan"), { name: "plan", args: "" });
  assert.equal(parseSlash("/ nothing"), undefined);
  assert.equal(parseSlash("/../etc"), undefined);
});

test("a chip names the exact lines: a selection to the start of line 7 is 4–6", () => {
  assert.deepEqual(selectedLines({ line: 3, character: 0 }, { line: 6, character: 0 }), [4, 6]);
  assert.deepEqual(selectedLines({ line: 3, character: 2 }, { line: 5, character: 9 }), [4, 6]);
  assert.deepEqual(selectedLines({ line: 3, character: 2 }, { line: 3, character: 9 }), [4, 4]);
  assert.equal(chipLabel("cart.py", [4, 6]), "cart.py:4–6");
  assert.equal(chipLabel("cart.py", [4, 4]), "cart.py:4");
  assert.equal(chipLabel("cart.py"), "cart.py");
});

test("the prompt list: prefix matches first, the source and the argument hint shown", () => {
  const prompts = [
    { name: "plan", source: "builtin", description: "Plan first", argumentHint: "TASK", path: null },
    {
      name: "review",
      source: "repository",
      description: "Review a file",
      argumentHint: "FILE",
      path: ".github/prompts/review.prompt.md",
    },
    {
      name: "preview",
      source: "user",
      description: "",
      argumentHint: null,
      path: "/home/u/.config/harness/prompts/preview.md",
    },
    { name: "huge", source: "repository", path: ".claude/commands/huge.md", error: "over 65,536 bytes" },
  ];
  assert.deepEqual(
    promptList(prompts, "re").map((p) => p.name),
    ["review", "preview"],
  );
  const [review] = promptList(prompts, "review");
  assert.deepEqual(review, {
    name: "review",
    source: "repository · .github/prompts/review.prompt.md",
    hint: "FILE",
    description: "Review a file",
  });
  assert.equal(promptList(prompts, "")[0].source, "built-in");
  assert.equal(promptList(prompts, "huge")[0].error, "over 65,536 bytes");
});

test("an error in the panel: no command id, the setting named, the key button when it is about the key", async () => {
  const { errorWords } = await import("../panelWords");
  const w = errorWords(
    "harness.run: no API key for openai: set HARNESS_API_KEY or OPENAI_API_KEY (or point the setting provider.baseUrl at a server that needs none)",
    { kind: "harness", command: "harness.run", setting: "provider.baseUrl", missing: "apiKey" },
  );
  assert.doesNotMatch(w.text, /harness\.run/);
  assert.match(w.text, /^no API key for openai/);
  assert.match(w.text, /Harness › Provider: Base Url/);
  assert.equal(w.setting, "harness.provider.baseUrl");
  assert.equal(w.key, true);
  assert.deepEqual(
    errorWords("Harness: harness.run.steer: run 3 is not in progress", {
      kind: "conflict",
      command: "harness.run.steer",
    }),
    { text: "run 3 is not in progress" },
  );
});
