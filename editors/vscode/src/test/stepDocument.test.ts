import assert from "node:assert/strict";
import { test } from "node:test";
import { parseStepPath, stepDocument, stepPath } from "../stepDocument";

test("step paths round-trip, and nothing else parses", () => {
  assert.equal(stepPath(7, 3), "/run-7/step-3.md");
  assert.deepEqual(parseStepPath("/run-7/step-3.md"), { runId: 7, step: 3 });
  assert.equal(parseStepPath("/run-x/step-3.md"), undefined);
  assert.equal(parseStepPath("/etc/passwd"), undefined);
});

test("the document: every message of the prompt, the calls, the full results, the events", () => {
  const doc = stepDocument({
    runId: 7,
    step: 3,
    prompt: [
      { role: "system", content: "You are the agent." },
      { role: "user", content: "Goal: fix calc.py" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "calc.py" } }] },
      { role: "tool", content: "[read calc.py]\ndef add(a, b):", toolCallId: "c1" },
    ],
    result: "[wrote calc.py] (30 chars)",
    toolCalls: [{ name: "write_file", arguments: { path: "calc.py" } }],
    events: [{ kind: "assembled", detail: { carried: 2 } }],
  });
  for (const part of [
    "# Harness run 7 · step 3",
    "### 1. system",
    "You are the agent.",
    "### 4. tool (answers c1)",
    '→ tool call: {"id":"c1","name":"read_file","arguments":{"path":"calc.py"}}',
    '- write_file calc.py {"path":"calc.py"}',
    "[wrote calc.py] (30 chars)",
    '- assembled: {"carried":2}',
  ]) {
    assert.ok(doc.includes(part), `missing ${part}\n${doc}`);
  }
});

test("a prompt in another shape is still shown whole", () => {
  const doc = stepDocument({ runId: 1, step: 1, prompt: "flat prompt text", result: "" });
  assert.ok(doc.includes("flat prompt text"));
  assert.ok(doc.includes("(none)"));
});
