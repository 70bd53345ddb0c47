import assert from "node:assert/strict";
import { test } from "node:test";
import { applyUnifiedDiff } from "../patch";

test("a write's diff applied to the file on disk gives the text after the write", () => {
  const before = "def add(a, b):\n    return a - b\n";
  const diff =
    "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n ";
  assert.equal(applyUnifiedDiff(before, diff), "def add(a, b):\n    return a + b\n");
  const created = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2";
  assert.equal(applyUnifiedDiff("", created), "x = 1\ny = 2");
  assert.equal(applyUnifiedDiff("other\n", diff), undefined, "a file that changed since: no guess");
  assert.equal(applyUnifiedDiff("x", "binary file a.bin: 3 bytes → 4 bytes (not shown)"), undefined);
});
