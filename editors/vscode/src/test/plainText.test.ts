/**
 * plainText against hostile strings (issue 20 items 4 and 5). `vscodeLinks` is VS Code
 * 1.100's own notification link parser (src/vs/base/common/linkedText.ts, `parseLinkedText`),
 * copied: what it finds in a text is what a notification makes a live link.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runFinishedMessage } from "../format";
import { markdownText, NEWLINE_MARK, pickText, plainText, visibleText, WORD_JOINER } from "../plainText";

const LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

function vscodeLinks(text: string): string[] {
  // A notification first turns newlines into spaces, then parses links.
  return [...text.replace(/(\r\n|\n|\r)/gm, " ").matchAll(LINK)].map((m) => m[2]);
}

/** What the user sees: the text without the invisible joiners plainText put in. */
function onScreen(text: string): string {
  return text.split(WORD_JOINER).join("");
}

// Item 4: the approval showed `sh -c 'echo "pytest -q"'`; the real command was in the target.
const ITEM_4 = "sh -c 'echo \"[pytest -q](https://example.com/`touch${IFS}pwned`)\"'";
// Item 5: the model's last words, one click from trusting the folder.
const ITEM_5 = "[Show test report](command:harness.trust?%5B%7B%22trusted%22%3Atrue%7D%5D)";

const HOSTILE: [string, string][] = [
  ["item 4", ITEM_4],
  ["item 5", ITEM_5],
  ["javascript:", "[click](javascript:alert(document.cookie))"],
  ["file:, any case", "[notes](FILE:///etc/passwd)"],
  ["nested brackets", "[[Allow](command:a)](command:harness.trust)"],
  ["two links", "[a](https://a.example) then [b](command:workbench.action.terminal.new)"],
  ["title", '[a](command:x "looks harmless")'],
  ["backticks", "run `[tests](command:harness.trust)` now"],
  ["newline inside", "[Show\nreport](command:harness.trust)"],
  ["a joiner of its own", `[a]${WORD_JOINER}(command:harness.trust)`],
  ["escaped by hand", "\\[a\\](command:harness.trust)"],
];

for (const [name, text] of HOSTILE) {
  test(`no live link from hostile text: ${name}`, () => {
    const shown = plainText(text);
    assert.deepEqual(vscodeLinks(shown), [], shown);
    assert.ok(!/[\p{Cc}]/u.test(shown), "no control character reaches the screen");
  });
}

test("the hostile texts are links as they come (the cases above can fail)", () => {
  assert.deepEqual(vscodeLinks(ITEM_4), ["https://example.com/`touch${IFS}pwned`"]);
  assert.deepEqual(vscodeLinks(ITEM_5), ["command:harness.trust?%5B%7B%22trusted%22%3Atrue%7D%5D"]);
});

test("the approval of item 4 shows the whole command, exactly as it runs", () => {
  assert.equal(onScreen(plainText(ITEM_4)), ITEM_4);
  assert.equal(onScreen(plainText(ITEM_5)), ITEM_5);
  // Markdown's characters are shown as they are: a notification renders none of them, and a
  // backslash escape would show a command the user is not asked about.
  const markdown = "a*b_c `d` <e> #f |g| !h \\i ~j";
  assert.equal(plainText(markdown), markdown);
});

test("control and formatting characters are written out; newlines are ⏎", () => {
  assert.equal(plainText("a\x1b[31mb"), "a\\x1b[31mb");
  assert.equal(plainText("rm -rf \u202e/ ~"), "rm -rf \\u202e/ ~");
  assert.equal(plainText("a\u200bb\u0000c\x7fd\u0085e"), "a\\u200bb\\x00c\\x7fd\\x85e");
  assert.equal(plainText("one\ntwo\r\nthree"), `one${NEWLINE_MARK}two${NEWLINE_MARK}three`);
  assert.equal(plainText(`a ${NEWLINE_MARK} b`), "a \\u23ce b");
  assert.equal(plainText("tab\there"), "tab\\x09here");
  assert.equal(plainText("\u2028"), "\\u2028");
  assert.equal(visibleText("😀 ok"), "😀 ok");
});

test("a joiner the text brings is written out, not taken for ours", () => {
  assert.equal(plainText(`[a]${WORD_JOINER}(x)`), "[a]\\u2060(x)");
});

test("random mixes of link syntax never give a live link", () => {
  const pieces = ["[", "]", "(", ")", "command:x", "https://h", "file:/f", " ", "\n", "`", "\\", "a", '"'];
  let seed = 20;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  for (let i = 0; i < 5000; i++) {
    let text = "";
    const length = 1 + (next() % 16);
    for (let j = 0; j < length; j++) text += pieces[next() % pieces.length];
    const shown = plainText(text);
    assert.deepEqual(vscodeLinks(shown), [], JSON.stringify(text));
    assert.equal(onScreen(shown), visibleText(text));
  }
});

test("quick pick rows show $(icon) as written", () => {
  assert.equal(pickText("$(alert) urgent [x](command:y)"), `\\$(alert) urgent [x]${WORD_JOINER}(command:y)`);
});

test("for a Markdown renderer every special character is escaped and no scheme is left", () => {
  const md = markdownText("[a](command:x) `b` *c* _d_ <e> #f |g| !h \\i");
  assert.equal(md, "\\[a\\]\\(command\\:x\\) \\`b\\` \\*c\\* \\_d\\_ \\<e\\> \\#f \\|g\\| \\!h \\\\i");
  assert.ok(!md.includes("command:"));
  assert.equal(markdownText("x\ny"), `x${NEWLINE_MARK}y`);
});

test("the end-of-run notification: the model's summary and paths as plain text", () => {
  const text = runFinishedMessage({
    runId: 3,
    outcome: "finished",
    steps: 2,
    spentTokens: 900,
    summary: ITEM_5,
    filesChanged: ["[a](command:harness.trust)"],
  });
  assert.deepEqual(vscodeLinks(text), []);
  assert.equal(
    onScreen(text),
    `Harness run 3 finished after 2 steps and 900 tokens. “${ITEM_5}” Changed: [a](command:harness.trust).`,
  );
});
