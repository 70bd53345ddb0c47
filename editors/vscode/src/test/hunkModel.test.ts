import assert from "node:assert/strict";
import { test } from "node:test";
import { fixGoal, isServerHarnessAction, rangeLabel } from "../actionModel";
import { flattenRevert, hunkAt, lenses, marks, placeHunks, ReviewCmd, splitLines, type Hunk } from "../hunkModel";

// Before: lines 1..10 "line N"; the agent changed line 2 and line 9 (docs/server.md's example),
// inserted two lines after line 5 and deleted line 7.
const BEFORE = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join("");
const hunks: Hunk[] = [
  {
    id: "h2",
    oldStart: 2,
    oldLines: 1,
    newStart: 2,
    newLines: 1,
    before: "line 2\n",
    after: "LINE TWO\n",
    state: "pending",
  },
  {
    id: "h5",
    oldStart: 6,
    oldLines: 0,
    newStart: 6,
    newLines: 2,
    before: "",
    after: "new a\nnew b\n",
    state: "pending",
  },
  { id: "h7", oldStart: 7, oldLines: 1, newStart: 9, newLines: 0, before: "line 7\n", after: "", state: "pending" },
  {
    id: "h9",
    oldStart: 9,
    oldLines: 1,
    newStart: 10,
    newLines: 1,
    before: "line 9\n",
    after: "LINE NINE\n",
    state: "pending",
  },
];
const AGENT =
  [
    "line 1",
    "LINE TWO",
    "line 3",
    "line 4",
    "line 5",
    "new a",
    "new b",
    "line 6",
    "line 8",
    "LINE NINE",
    "line 10",
  ].join("\n") + "\n";

test("splitLines: newline-terminated or not, empty, CRLF", () => {
  assert.deepEqual(splitLines("a\nb\n"), ["a", "b"]);
  assert.deepEqual(splitLines("a\r\nb"), ["a", "b"]);
  assert.deepEqual(splitLines(""), []);
  assert.equal(splitLines(BEFORE).length, 10);
});

test("the pending hunks sit where the agent wrote them in its own text", () => {
  const placed = placeHunks(hunks, AGENT);
  assert.deepEqual(
    placed.map((p) => [p.id, p.line, p.lines, p.removed]),
    [
      ["h2", 1, 1, 1],
      ["h5", 5, 2, 0],
      ["h7", 8, 0, 1],
      ["h9", 9, 1, 1],
    ],
  );
  assert.deepEqual(marks(placed, 11), { added: [1, 5, 6, 9], removed: [8] });
});

test("after an undo the hunks below move by what it put back; undone and kept hunks are not drawn", () => {
  // h5 undone (the two inserted lines gone), h2 kept.
  const now = AGENT.replace("new a\nnew b\n", "");
  const states = hunks.map((h) => ({ ...h, state: h.id === "h5" ? "undone" : h.id === "h2" ? "kept" : h.state }));
  const placed = placeHunks(states, now);
  assert.deepEqual(
    placed.map((p) => [p.id, p.line]),
    [
      ["h7", 6],
      ["h9", 7],
    ],
  );
  assert.equal(hunkAt(placed, 7)?.id, "h9");
  assert.equal(hunkAt(placed, 6)?.id, "h7", "a deletion answers on its marked line");
  assert.equal(hunkAt(placed, 1), undefined);
});

test("the user's own lines above a hunk: it is found at the nearest place its lines are", () => {
  const now = "# a header the user added\n# and another\n" + AGENT;
  const placed = placeHunks(hunks, now);
  assert.deepEqual(
    placed.map((p) => [p.id, p.line]),
    [
      ["h2", 3],
      ["h5", 7],
      ["h7", 10],
      ["h9", 11],
    ],
  );
});

test("a hunk whose lines the user changed since is not drawn (its undo would be refused)", () => {
  const now = AGENT.replace("LINE NINE", "line nine, the user's");
  assert.deepEqual(
    placeHunks(hunks, now).map((p) => p.id),
    ["h2", "h5", "h7"],
  );
  assert.deepEqual(placeHunks(hunks, ""), [{ id: "h7", line: 0, lines: 0, removed: 1, before: "line 7\n", after: "" }]);
});

test("the same text twice: the occurrence nearest the hunk's place is taken", () => {
  const twice: Hunk[] = [
    { id: "x", oldStart: 4, oldLines: 1, newStart: 4, newLines: 1, before: "a\n", after: "same\n", state: "pending" },
  ];
  const placed = placeHunks(twice, "same\nb\nc\nsame\nd\n");
  assert.equal(placed[0].line, 3);
});

test("CodeLenses: the file's Keep all / Undo all on line 0, then Keep · Undo above each hunk", () => {
  const placed = placeHunks(hunks, AGENT);
  const got = lenses("src/long.py", placed);
  assert.deepEqual(got.slice(0, 2), [
    { line: 0, title: "Harness: 4 changes to review — Keep all", command: ReviewCmd.keepFile, args: ["src/long.py"] },
    { line: 0, title: "Undo all…", command: ReviewCmd.undoFile, args: ["src/long.py"] },
  ]);
  assert.deepEqual(
    got.slice(2).map((l) => [l.line, l.title, l.command, l.args]),
    [
      [1, "✓ Keep (changed 1 line)", ReviewCmd.keepHunk, ["src/long.py", "h2"]],
      [1, "↶ Undo", ReviewCmd.undoHunk, ["src/long.py", "h2"]],
      [5, "✓ Keep (added 2 lines)", ReviewCmd.keepHunk, ["src/long.py", "h5"]],
      [5, "↶ Undo", ReviewCmd.undoHunk, ["src/long.py", "h5"]],
      [8, "✓ Keep (removed 1 line)", ReviewCmd.keepHunk, ["src/long.py", "h7"]],
      [8, "↶ Undo", ReviewCmd.undoHunk, ["src/long.py", "h7"]],
      [9, "✓ Keep (changed 1 line)", ReviewCmd.keepHunk, ["src/long.py", "h9"]],
      [9, "↶ Undo", ReviewCmd.undoHunk, ["src/long.py", "h9"]],
    ],
  );
  assert.deepEqual(lenses("a.py", []), [], "nothing to review: no lens at all");
  assert.equal(lenses("a.py", placed.slice(0, 1))[0].title, "Harness: 1 change to review — Keep all");
});

test("a chip's label says the exact lines; a range ending at a line's start leaves that line out", () => {
  const r = (l1: number, c1: number, l2: number, c2: number) => ({
    start: { line: l1, character: c1 },
    end: { line: l2, character: c2 },
  });
  assert.equal(rangeLabel("cart.py", r(3, 0, 6, 0)), "cart.py:4–6");
  assert.equal(rangeLabel("cart.py", r(3, 0, 5, 7)), "cart.py:4–6");
  assert.equal(rangeLabel("cart.py", r(4, 2, 4, 9)), "cart.py:5");
  assert.equal(rangeLabel("cart.py", r(4, 0, 5, 0)), "cart.py:5");
});

test("Fix with Harness's goal names the place, the problem and who reported it", () => {
  assert.equal(
    fixGoal("data.json:2", { message: "Expected comma", source: "json" }),
    "Fix the problem at data.json:2: Expected comma (json)",
  );
  assert.equal(fixGoal("a.py:1", { message: "x" }), "Fix the problem at a.py:1: x");
});

test("the server's Harness actions are dropped in VS Code, every other server's kept", () => {
  assert.ok(isServerHarnessAction({ title: "Harness: Fix this diagnostic" }));
  assert.ok(isServerHarnessAction({ title: "Ask", command: { title: "Ask", command: "harness.codeAction" } }));
  assert.ok(isServerHarnessAction({ title: "Ask", command: "harness.codeAction" }));
  assert.ok(!isServerHarnessAction({ title: "Organize imports", command: { title: "x", command: "python.sort" } }));
  assert.ok(!isServerHarnessAction({ title: "Fix with Harness" }), "the extension's own title is not the server's");
});

test("a conversation's revert (one result per run, newest first): each file's last act, the runs' diagnostics", () => {
  const got = flattenRevert({
    runs: [
      {
        files: [
          { path: "calc.py", action: "restored" },
          { path: "notes.md", action: "unchanged" },
        ],
        diagnostics: null,
      },
      {
        files: [
          { path: "calc.py", action: "unchanged" },
          { path: "notes.md", action: "refused", reason: "changed since" },
        ],
        diagnostics: null,
      },
    ],
  });
  assert.deepEqual(got.files, [
    { path: "calc.py", action: "restored" },
    { path: "notes.md", action: "refused", reason: "changed since" },
  ]);
  assert.deepEqual(got.diagnostics, { diagnostics: null }, "no back end: the caller asks VS Code");
  const withServer = flattenRevert({
    runs: [{ files: [], diagnostics: [{ path: "a.py", line: 3, message: "undefined name" }] }],
  });
  assert.deepEqual(withServer.diagnostics, { diagnostics: [{ path: "a.py", line: 3, message: "undefined name" }] });
  assert.deepEqual(flattenRevert({ files: [{ path: "x", action: "deleted" }] }).files, [
    { path: "x", action: "deleted" },
  ]);
});
