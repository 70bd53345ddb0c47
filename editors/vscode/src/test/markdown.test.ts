import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMarkdown } from "../markdown";

test("the model's words are Markdown: emphasis, code, lists", () => {
  const html = renderMarkdown("Fixed **add()**:\n\n- `a + b`\n\n```py\nx = 1 < 2\n```");
  assert.match(html, /<strong>add\(\)<\/strong>/);
  assert.match(html, /<code>a \+ b<\/code>/);
  assert.match(html, /x = 1 &lt; 2/);
});

test("hostile Markdown renders inert: no HTML, no command:/javascript: links, no images fetched", () => {
  const html = renderMarkdown(
    [
      "[run me](command:workbench.action.terminal.new)",
      "[js](javascript:alert(1))",
      "<img src=http://evil.example/x.png onerror=alert(1)>",
      "![tracker](http://evil.example/pixel.png)",
      "<script>alert(1)</script>",
      "<command:harness.run.revert>",
      "[data](data:text/html,<script>alert(1)</script>) [vb](VBScript:msgbox)",
    ].join("\n\n"),
  );
  assert.doesNotMatch(html, /<img/i);
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html, /\shref=/i, "no link navigates by itself");
  assert.doesNotMatch(html, /data-href="(command|javascript|data|vbscript):/i);
  assert.match(html, /\[image: tracker\]/);
  assert.match(html, /&lt;img src=/);
  assert.match(html, /\[run me\]\(command:/, "a refused link stays visible as text");
});

test("an external link is a button-like link the extension opens through VS Code's confirmation", () => {
  const html = renderMarkdown('See [the docs](https://example.com/a?b=1&c=2 "t").');
  assert.match(
    html,
    /<a class="ext" data-href="https:\/\/example\.com\/a\?b=1&amp;c=2" title="https:\/\/example\.com\/a\?b=1&amp;c=2" tabindex="0">the docs<\/a>/,
  );
});
