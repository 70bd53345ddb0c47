import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToolRow } from "../conversation";
import { markAndReason, rowHtml, rowView } from "../panelRows";

function row(more: Partial<ToolRow>): ToolRow {
  return { kind: "tool", runId: 3, step: 2, callId: "c1", name: "edit_file", target: "cart.py", status: "ok", ...more };
}

test("a refused read says refused once, with its reason", () => {
  const v = rowView(row({ name: "read_file", target: ".env", status: "refused", why: "refused (builtin: .env)" }));
  assert.equal(v.mark, "✗");
  assert.equal(v.reason, "refused (builtin: .env)");
  assert.equal(v.title, "read_file .env ✗ refused (builtin: .env)");
  assert.deepEqual(markAndReason("refused", "refused"), ["✗ refused", ""]);
  assert.deepEqual(markAndReason("denied", "denied by you"), ["✗", "denied by you"]);
  const failed = "`old` occurs 3 times in `cart.py`";
  assert.deepEqual(markAndReason("failed", failed), ["✗ failed", failed]);
});

test("a failed edit: mark and reason in the summary, the failure text when expanded", () => {
  const r = row({
    status: "failed",
    why: "`old` occurs 3 times in `cart.py`",
    summary: "edit_file cart.py",
    head: "`old` occurs 3 times in `cart.py`; quote more lines",
  });
  const html = rowHtml(r, "3:c1", "", false);
  assert.match(
    html,
    /<summary title="edit_file cart\.py ✗ failed `old` occurs 3 times in `cart\.py`\nedit_file cart\.py">/,
  );
  assert.match(html, /<span class="status">✗ failed<\/span><\/span> <span class="reason">`old` occurs 3 times/);
  assert.match(html, /<pre class="result">`old` occurs 3 times in `cart\.py`; quote more lines<\/pre>/);
  assert.match(html, /data-action="openResult" data-run="3" data-step="2"/);
});

test("an exec row expands to its output head; without a head, to its summary; text escaped", () => {
  const exec = row({ name: "exec", target: "echo <hi>", summary: "exec echo · exit 0 · 1 line", head: "<hi>" });
  assert.equal(rowView(exec).head, "<hi>");
  assert.match(
    rowHtml(exec, "k", "", true),
    /<details class="tool st-ok" data-key="k" open>[^]*<pre class="result">&lt;hi&gt;<\/pre>/,
  );
  assert.equal(
    rowView(row({ summary: "edit_file cart.py · wrote cart.py" })).head,
    "edit_file cart.py · wrote cart.py",
  );
  assert.doesNotMatch(rowHtml(row({ status: "running" }), "k", "", false), /openResult/);
});
