/**
 * The conversation panel's page: a strict CSP (nothing remote; the one script is the
 * extension's own bundle, loaded with a nonce; the style sheet below carries the nonce too;
 * images only from the extension — the model's are never fetched), and the empty regions
 * the script fills. Pure.
 */

export interface ShellOptions {
  nonce: string;
  /** `webview.cspSource` */
  cspSource: string;
  /** `webview.asWebviewUri` of dist/panel.js */
  script: string;
}

const STYLE = `
body { padding: 0 8px; color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
#app { display: flex; flex-direction: column; height: 100vh; }
#top { flex: 0 0 auto; padding: 6px 0; border-bottom: 1px solid var(--vscode-panel-border, #444); }
#conv { flex: 1 1 auto; overflow-y: auto; padding: 6px 0; min-height: 0; }
#bottom { flex: 0 0 auto; border-top: 1px solid var(--vscode-panel-border, #444); padding: 6px 0; }
.muted { opacity: 0.75; }
.budget .line { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
svg.bar { width: 100%; height: 6px; display: block; margin-top: 3px; }
svg.bar .ceiling { fill: var(--vscode-editorWidget-border, #555); }
svg.bar .used { fill: var(--vscode-charts-blue, #3794ff); } svg.bar .used.hot { fill: var(--vscode-charts-red, #f14c4c); }
.turn { margin: 6px 0; overflow-wrap: anywhere; }
.turn.user { background: var(--vscode-textBlockQuote-background, rgba(127,127,127,.1)); border-left: 3px solid var(--vscode-focusBorder); padding: 4px 8px; }
.turn.user .who { font-size: 0.85em; opacity: 0.7; }
.turn.user .body { white-space: pre-wrap; }
.md p { margin: 4px 0; } .md pre { overflow-x: auto; background: var(--vscode-textCodeBlock-background); padding: 4px; }
.md code { font-family: var(--vscode-editor-font-family); }
a.ext { color: var(--vscode-textLink-foreground); cursor: pointer; text-decoration: underline; }
.img-alt { opacity: 0.7; font-style: italic; }
details.tool { margin: 2px 0; border-radius: 3px; }
details.tool > summary { cursor: pointer; padding: 2px 4px; list-style: none; }
details.tool > summary::-webkit-details-marker { display: none; }
details.tool > summary .line { display: flex; gap: 4px; align-items: baseline; min-width: 0; }
details.tool > summary .what { flex: 1 1 auto; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
details.tool > summary .status { flex: 0 0 auto; white-space: nowrap; }
details.tool > summary .reason { display: block; margin-left: 1.4em; white-space: normal; word-break: break-word; opacity: 0.85; }
.st-refused .reason, .st-denied .reason, .st-failed .reason { color: var(--vscode-errorForeground, #f48771); opacity: 1; }
button.more { margin-left: 22px; font-size: 0.9em; }
details.tool > summary:hover { background: var(--vscode-list-hoverBackground); }
details.tool .name { font-weight: 600; } details.tool .target { font-family: var(--vscode-editor-font-family); opacity: 0.9; }
#conv-wrap { position: relative; flex: 1 1 auto; display: flex; flex-direction: column; min-height: 0; }
#newActivity { position: absolute; bottom: 6px; left: 50%; transform: translateX(-50%); z-index: 2; box-shadow: 0 1px 4px rgba(0,0,0,.4); }
#newActivity[hidden], #error:empty, #complete[hidden], #steer[hidden] { display: none; }
#error { margin: 4px 0; padding: 4px 6px; border-left: 3px solid var(--vscode-errorForeground, #f48771); background: var(--vscode-inputValidation-errorBackground, rgba(190,17,0,.2)); white-space: pre-wrap; word-break: break-word; }
#error .buttons { margin-top: 4px; display: flex; gap: 6px; flex-wrap: wrap; }
#complete { list-style: none; margin: 0 0 2px; padding: 2px 0; max-height: 14em; overflow-y: auto; border: 1px solid var(--vscode-editorWidget-border, #454545); background: var(--vscode-editorSuggestWidget-background, #252526); }
#complete li { padding: 2px 6px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#complete li.sel { background: var(--vscode-editorSuggestWidget-selectedBackground, #04395e); }
#complete .detail { opacity: 0.7; margin-left: 6px; font-size: 0.9em; }
#steer { font-size: 0.9em; margin: 2px 0; display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
.turn.user.pending { opacity: 0.7; }
.turn.user .who { display: flex; justify-content: space-between; gap: 6px; }
.turn.user .chips { margin-top: 2px; }
.chip button { background: none; color: inherit; padding: 0 0 0 4px; }
.approval:focus { outline: 2px solid var(--vscode-focusBorder); }
.approval .keys { font-size: 0.85em; opacity: 0.8; margin-top: 4px; }
.setup { margin: 4px 0 8px; padding: 6px 8px; border: 1px solid var(--vscode-panel-border, #444); border-radius: 3px; }
.setup ol { padding-left: 1.4em; margin: 4px 0; } .setup li { margin: 4px 0; }
.budget .state { margin-bottom: 2px; } .budget .state.waiting button { color: var(--vscode-charts-yellow, #cca700); padding: 0; text-align: left; }
label.plan { display: inline-flex; gap: 3px; align-items: center; font-size: 0.9em; }
button.model { max-width: 12em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.st-ok .status { color: var(--vscode-testing-iconPassed, #73c991); }
.st-refused .status, .st-denied .status, .st-failed .status { color: var(--vscode-testing-iconFailed, #f14c4c); }
.st-waiting .status { color: var(--vscode-charts-yellow, #cca700); font-weight: 600; }
pre.result, pre.command { margin: 2px 0 4px 22px; padding: 4px; white-space: pre-wrap; word-break: break-word; background: var(--vscode-textCodeBlock-background); font-family: var(--vscode-editor-font-family); max-height: 12em; overflow: auto; }
.approval { margin: 4px 0 6px 22px; padding: 6px; border: 1px solid var(--vscode-charts-yellow, #cca700); border-radius: 3px; }
.approval .buttons { margin-top: 6px; display: flex; gap: 6px; flex-wrap: wrap; }
.approval pre.command { margin-left: 0; }
#conv > .approval { margin-left: 0; }
.end { margin: 6px 0 10px; padding: 3px 6px; font-size: 0.9em; border-left: 3px solid var(--vscode-testing-iconPassed, #73c991); opacity: 0.9; }
.end.bad { border-left-color: var(--vscode-charts-orange, #d18616); }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 3px 10px; border-radius: 2px; cursor: pointer; font: inherit; }
button:hover { background: var(--vscode-button-hoverBackground); }
button.secondary { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
button.link, button.icon-btn, button.conv { background: none; color: var(--vscode-textLink-foreground); padding: 0 2px; }
button.icon-btn { color: var(--vscode-foreground); }
.section-head { font-weight: 600; margin: 4px 0; display: flex; justify-content: space-between; }
ul.changes, ul.history { list-style: none; margin: 0; padding: 0; max-height: 9em; overflow-y: auto; }
ul.changes li { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
button.conv { display: block; width: 100%; text-align: left; color: inherit; padding: 3px 4px; }
button.conv:hover { background: var(--vscode-list-hoverBackground); } button.conv.open { background: var(--vscode-list-inactiveSelectionBackground); }
button.conv .goal { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; } button.conv .muted { font-size: 0.85em; }
#history[hidden], #attached:empty { display: none; }
#attached { margin: 2px 0; font-size: 0.9em; }
.chip { display: inline-block; background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); border-radius: 8px; padding: 0 6px; margin: 1px 3px 1px 0; }
textarea { width: 100%; box-sizing: border-box; resize: vertical; min-height: 3.2em; background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, transparent); font: inherit; padding: 4px; }
textarea:focus { outline: 1px solid var(--vscode-focusBorder); }
.row { display: flex; gap: 6px; align-items: center; margin-top: 4px; flex-wrap: wrap; }
.row .grow { flex: 1 1 auto; }
#verify { min-width: 0; max-width: 100%; }
button.verify { display: block; max-width: 100%; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
button.verify:disabled { color: var(--vscode-disabledForeground, #888); cursor: not-allowed; }
`;

export function panelShell(o: ShellOptions): string {
  const csp = [
    "default-src 'none'",
    `img-src ${o.cspSource}`,
    `style-src 'nonce-${o.nonce}'`,
    `script-src 'nonce-${o.nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp};">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="${o.nonce}">${STYLE}</style><title>Harness</title></head>
<body><div id="app">
<div id="top"><div id="budget"></div><div class="row"><span class="grow muted" id="title"></span>
<button class="link" data-action="toggleHistory">History</button><button class="link" data-action="newConversation">New</button></div>
<div id="history" hidden></div></div>
<div id="conv-wrap"><div id="conv" aria-live="polite"></div>
<button id="newActivity" class="secondary" hidden>↓ new activity</button></div>
<div id="bottom"><div id="changes"></div><div id="error" role="alert"></div><div id="attached"></div>
<ul id="complete" role="listbox" aria-label="Completions" hidden></ul>
<div id="steer" hidden><span class="muted" id="steerWhat"></span>
<label><input type="radio" name="steer" value="queue" checked> Queue</label><label><input type="radio" name="steer" value="stop"> Stop and send</label></div>
<textarea id="prompt" rows="3" placeholder="Ask the agent… (@ a file, symbol or problems · / a prompt · Enter sends, Shift+Enter a new line)" aria-label="Prompt"></textarea>
<div class="row"><button class="secondary" data-action="attach" title="Attach the current selection or file">Attach selection</button>
<span id="verify"></span><span id="model"></span>
<span class="grow"></span><label class="plan" title="Plan mode: the agent only reads and ends with a plan; nothing is written"><input type="checkbox" id="plan"> Plan</label>
<button id="stop" class="secondary" data-action="stop" hidden>Stop</button>
<button id="send" data-action="send">Send</button></div></div>
</div><script nonce="${o.nonce}" src="${o.script}"></script></body></html>`;
}
