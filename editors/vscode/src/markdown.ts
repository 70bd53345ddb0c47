/**
 * The model's words as Markdown for the panel (SPEC §11 "Words shown safely"): markdown-it
 * with HTML off, so any tag the model writes is text; links kept only for http(s) and
 * mailto — and even those carry no `href`: the panel asks the extension, which opens them
 * with `vscode.env.openExternal` (VS Code's own confirmation for untrusted domains); a
 * `command:`, `javascript:`, `data:` or `file:` link stays plain text; images are never
 * fetched (their alt text is shown). Pure: runs in the extension host, unit-tested.
 */
import MarkdownIt from "markdown-it";

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

// markdown-it refuses javascript:, vbscript:, file: and most data: itself; command: and
// every other scheme are refused here too.
md.validateLink = (url: string): boolean => SAFE_LINK.test(url.trim());

md.renderer.rules.link_open = (tokens, idx, _options, _env, self) => {
  const token = tokens[idx];
  const href = token.attrGet("href") ?? "";
  token.attrs = [
    ["class", "ext"],
    ["data-href", href],
    ["title", href],
    ["tabindex", "0"],
  ];
  return self.renderToken(tokens, idx, _options);
};

md.renderer.rules.image = (tokens, idx) => {
  const alt = tokens[idx].content;
  return `<span class="img-alt">[image: ${md.utils.escapeHtml(alt || "no description")}]</span>`;
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}
