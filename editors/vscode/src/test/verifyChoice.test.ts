/** The panel's per-run check: a typed command line → argv (no shell), argv → the text shown
 * and prefilled, the control's HTML (trusted and in Restricted Mode), and which argv a run
 * gets. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { commandText, runVerify, splitCommand, VERIFY_ACTION, verifyHtml } from "../verifyChoice";

const split = (line: string): string[] | string => {
  const s = splitCommand(line);
  return "argv" in s ? s.argv : s.error;
};

test("a command line splits into argv as a shell would quote it, without a shell", () => {
  assert.deepEqual(split("python -m pytest -q"), ["python", "-m", "pytest", "-q"]);
  assert.deepEqual(split(`python3 -c "import calc; assert calc.add(2, 3) == 5"`), [
    "python3",
    "-c",
    "import calc; assert calc.add(2, 3) == 5",
  ]);
  assert.deepEqual(split(`  pytest   -k 'not slow'  `), ["pytest", "-k", "not slow"]);
  assert.deepEqual(split(String.raw`my\ tool "say \"hi\"" ''`), ["my tool", `say "hi"`, ""]);
  assert.deepEqual(split(String.raw`echo '$HOME' \$PATH "*.py" '#1'`), ["echo", "$HOME", "$PATH", "*.py", "#1"]);
  assert.deepEqual(split(""), []);
  assert.deepEqual(split("   "), []);
});

test("what a shell would do is refused with the reason and the way out, never passed on", () => {
  const cases: [string, RegExp][] = [
    ["pytest | tee log", /`\|`: no shell runs the check[^]*pipes, redirects[^]*sh -c/],
    ["make test && make lint", /`&&`: no shell/],
    ["pytest > out.txt", /`>`: no shell/],
    ["pytest 2>&1", /`>&`: no shell/],
    ["pytest; echo done", /`;`: no shell/],
    ["pytest $ARGS", /`\$ARGS`: no shell runs the check, so variables are not expanded/],
    [`pytest "$ARGS"`, /`\$ARGS`: no shell/],
    ["pytest tests/*.py", /`tests\/\*\.py`: no shell runs the check, so wildcards are not expanded[^]*'tests\/\*\.py'/],
    ["pytest # quick", /`#`: no shell runs the check/],
    [`pytest -k 'not slow`, /A single quote is not closed/],
    [`python -c "print(1)`, /A double quote is not closed/],
  ];
  for (const [line, why] of cases) assert.match(String(split(line)), why, line);
});

test("argv shown as a command line that splits back into the same argv", () => {
  const table: string[][] = [
    ["python", "-m", "pytest", "-q"],
    ["python3", "-c", `import x; print("hi")`],
    ["echo", "$HOME", "it's", "a b", ""],
    ["pytest", "tests/*.py", "-k", "it's*", "a?b"],
    ["back\\slash", "#x", "a|b", "a;b", "~"],
  ];
  for (const argv of table) {
    const text = commandText(argv);
    assert.deepEqual(splitCommand(text), { argv }, text);
  }
  assert.equal(commandText(["python", "-m", "pytest", "-q"]), "python -m pytest -q");
});

test("the control: the check the next run uses, from the setting or chosen for this window", () => {
  const none = verifyHtml({ setting: [], trusted: true });
  assert.match(none, new RegExp(`<button [^>]*data-action="${VERIFY_ACTION}"[^>]*>Verify: no check</button>`));
  assert.doesNotMatch(none, /disabled/);
  assert.match(none, /title="[^"]*harness\.verify setting[^"]*Click to choose/);

  const setting = verifyHtml({ setting: ["pytest", "-q"], trusted: true });
  assert.match(setting, />Verify: pytest -q</);

  const chosen = verifyHtml({ chosen: ["make", "<check>"], setting: ["pytest", "-q"], trusted: true });
  assert.match(chosen, />Verify <span class="muted">\(this window\)<\/span>: make \\&lt;check\\&gt;<\/button>/);
  assert.match(chosen, /title="[^"]*not saved in settings[^"]*empty command goes back to the setting/);

  const long = verifyHtml({ setting: ["python", "-c", "x".repeat(200)], trusted: true });
  assert.match(long, /x…<\/button>/);
  assert.match(long, new RegExp(`title="[^"]*${"x".repeat(200)}`), "the whole command in the tooltip");
});

test("Restricted Mode: the control is disabled, says why, and the setting (user value) is what runs", () => {
  const html = verifyHtml({ chosen: ["make", "check"], setting: ["pytest"], trusted: false });
  assert.match(html, /<button [^>]*disabled[^>]*>Verify: pytest<\/button>/);
  assert.match(html, /aria-disabled="true"/);
  assert.match(html, /title="Restricted Mode: [^"]*your user setting harness\.verify[^"]*Trust this workspace/);
  assert.deepEqual(runVerify({ chosen: ["make", "check"], setting: ["pytest"], trusted: false }), ["pytest"]);
});

test("which argv a run gets: the window's choice, else the setting", () => {
  assert.deepEqual(runVerify({ chosen: ["make", "check"], setting: ["pytest"], trusted: true }), ["make", "check"]);
  assert.deepEqual(runVerify({ setting: ["pytest"], trusted: true }), ["pytest"]);
  assert.deepEqual(runVerify({ setting: [], trusted: true }), []);
});
