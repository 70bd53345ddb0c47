/**
 * The trace view's HTML: a page shell (strict CSP, one nonce'd script that forwards clicks to
 * the extension), the list of runs, and one run — header, chart, table of steps. Every
 * string from the store is escaped here. Pure, unit-tested.
 */
import { chartData, renderChart } from "./chart";
import { exact, fileList, oneLine, outcomeShort, percent, plural, short, toolLabel } from "./format";
import { escapeHtml as h } from "./html";
import type { RunSummary, TraceRun, TraceStepRow } from "./protocol";

export interface ShellOptions {
  nonce: string;
  cspSource: string;
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 16px 24px; }
h1 { font-size: 1.3em; margin: 12px 0 4px; } h2 { font-size: 1.1em; margin: 18px 0 6px; }
.layout { display: flex; gap: 20px; align-items: flex-start; }
#runs { flex: 0 0 280px; max-height: 90vh; overflow: auto; }
#run { flex: 1 1 auto; min-width: 0; }
.run-item { display: block; width: 100%; text-align: left; padding: 6px 8px; margin: 0 0 4px; border: 1px solid var(--vscode-panel-border, #444); background: none; color: inherit; cursor: pointer; border-radius: 3px; }
.run-item:hover, .run-item:focus { background: var(--vscode-list-hoverBackground); }
.run-item.selected { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
.run-item .goal { display: block; opacity: 0.85; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.muted { opacity: 0.75; }
svg.chart { max-width: 100%; height: auto; background: var(--vscode-editor-background); }
svg.chart .grid { stroke: var(--vscode-editorRuler-foreground, #555); stroke-width: 0.5; }
svg.chart .tick, svg.chart .axis-label { fill: var(--vscode-descriptionForeground, #aaa); font-size: 10px; }
svg.chart .request { fill: var(--vscode-charts-blue, #3794ff); }
svg.chart .cached { fill: var(--vscode-charts-green, #89d185); }
svg.chart .ceiling { fill: none; stroke: var(--vscode-charts-red, #f14c4c); stroke-width: 1.5; stroke-dasharray: 4 3; }
svg.chart .mark.stubbed { fill: var(--vscode-charts-purple, #b180d7); }
svg.chart .mark.reread { fill: var(--vscode-charts-orange, #d18616); }
svg.chart .bar { cursor: pointer; } svg.chart .bar:hover .request, svg.chart .bar:focus .request { opacity: 0.75; }
.legend span { margin-right: 14px; white-space: nowrap; } .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: middle; }
.swatch.request { background: var(--vscode-charts-blue, #3794ff); } .swatch.cached { background: var(--vscode-charts-green, #89d185); }
.swatch.ceiling { height: 0; border-top: 2px dashed var(--vscode-charts-red, #f14c4c); }
svg.swatch-mark { width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
svg.swatch-mark .mark.stubbed { fill: var(--vscode-charts-purple, #b180d7); } svg.swatch-mark .mark.reread { fill: var(--vscode-charts-orange, #d18616); }
table.steps { border-collapse: collapse; width: 100%; margin-top: 8px; }
table.steps th, table.steps td { text-align: right; padding: 3px 8px; border-bottom: 1px solid var(--vscode-panel-border, #444); }
table.steps th:nth-child(2), table.steps td:nth-child(2) { text-align: left; }
table.steps tr.step { cursor: pointer; } table.steps tr.step:hover { background: var(--vscode-list-hoverBackground); }
`;

const SCRIPT = `
const vscode = acquireVsCodeApi();
const runs = document.getElementById("runs");
const run = document.getElementById("run");
window.addEventListener("message", (event) => {
  const m = event.data;
  if (m.type === "runs") runs.innerHTML = m.html;
  if (m.type === "run") { run.innerHTML = m.html; run.dataset.run = String(m.runId); }
});
function act(target) {
  const r = target.closest("[data-run]");
  if (r && r.classList.contains("run-item")) { vscode.postMessage({ type: "openRun", runId: Number(r.dataset.run) }); return; }
  const s = target.closest("[data-step]");
  if (s) vscode.postMessage({ type: "openStep", runId: Number(run.dataset.run), step: Number(s.dataset.step) });
}
document.addEventListener("click", (e) => act(e.target));
document.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") act(e.target); });
vscode.postMessage({ type: "ready" });
`;

export function shellHtml(o: ShellOptions): string {
  const csp = [
    "default-src 'none'",
    `style-src ${o.cspSource} 'nonce-${o.nonce}'`,
    `script-src 'nonce-${o.nonce}'`,
    `img-src ${o.cspSource} data:`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Harness Trace</title><style nonce="${o.nonce}">${STYLE}</style></head>
<body><div class="layout"><nav id="runs" aria-label="Runs"><p class="muted">Loading runs…</p></nav>
<main id="run"><p class="muted">Pick a run.</p></main></div>
<script nonce="${o.nonce}">${SCRIPT}</script></body></html>`;
}

export function runsHtml(runs: readonly RunSummary[], selected?: number): string {
  if (runs.length === 0) return `<p class="muted">No runs in the store yet. Run a task (Harness: Run Task).</p>`;
  const items = runs.map((r) => {
    const cls = r.runId === selected ? "run-item selected" : "run-item";
    const outcome = r.outcome === null ? "running" : outcomeShort(r.outcome);
    return (
      `<button class="${cls}" data-run="${r.runId}"><strong>#${r.runId}</strong> ${h(outcome)} · ` +
      `${plural(r.steps, "step")} · ${short(r.spentTokens)} tokens` +
      `<span class="goal" title="${h(r.goal)}">${h(oneLine(r.goal, 80))}</span></button>`
    );
  });
  return `<h2>Runs</h2>${items.join("")}`;
}

function cachedCell(s: TraceStepRow): string {
  const reported = s.reportedPromptTokens;
  const cached = s.cachedPromptTokens;
  if (typeof reported !== "number" || typeof cached !== "number" || reported <= 0) return "—";
  return percent(Math.min(1, cached / reported));
}

function stepRow(s: TraceStepRow): string {
  const tools = (s.toolCalls ?? []).map(toolLabel).join(", ") || oneLine(s.decision ?? "", 40) || "—";
  const n = (v: number | null | undefined): string => (typeof v === "number" ? exact(v) : "—");
  return (
    `<tr class="step" data-step="${s.step}" tabindex="0"><td>${s.step}</td><td>${h(tools)}</td>` +
    `<td>${n(s.estTokens)}</td><td>${n(s.contextCeiling)}</td><td>${n(s.reportedPromptTokens)}</td>` +
    `<td>${cachedCell(s)}</td><td>${n(s.carried)}</td><td>${n(s.stubbed)}</td><td>${n(s.reread)}</td>` +
    `<td>${n(s.refused)}</td><td>${n(s.failed)}</td></tr>`
  );
}

const LEGEND =
  `<p class="legend"><span><i class="swatch request"></i>request tokens (estimated)</span>` +
  `<span><i class="swatch cached"></i>cached share</span>` +
  `<span><i class="swatch ceiling"></i>ceiling</span>` +
  `<span><svg class="swatch-mark" viewBox="0 0 10 10"><rect class="mark stubbed" x="1.5" y="1.5" width="7" height="7"/></svg>stubbed</span>` +
  `<span><svg class="swatch-mark" viewBox="0 0 10 10"><path class="mark reread" d="M1 9 l4 -7 l4 7 z"/></svg>re-read</span></p>`;

export function runHtml(trace: TraceRun): string {
  const r = trace.run;
  const outcome = r.outcome === null ? "running" : outcomeShort(r.outcome);
  const parts = [
    `<h1>Run ${r.runId} · ${h(outcome)}</h1>`,
    `<p class="goal">${h(r.goal)}</p>`,
    `<p class="muted">${plural(r.steps, "step")} · ${exact(r.spentTokens)} tokens · ${h(r.workspace)}</p>`,
  ];
  if (r.summary) parts.push(`<p class="summary">“${h(r.summary)}”</p>`);
  if (Array.isArray(r.filesChanged)) {
    parts.push(
      `<p class="files">${r.filesChanged.length ? `Changed: ${h(fileList(r.filesChanged, 20))}` : "No files changed."}</p>`,
    );
  }
  if (trace.steps.length === 0) {
    parts.push(`<p class="muted">No step recorded yet.</p>`);
    return parts.join("");
  }
  parts.push(`<h2>Request tokens per step</h2>`, renderChart(chartData(trace)), LEGEND);
  parts.push(
    `<table class="steps"><thead><tr><th>step</th><th>tools</th><th>request</th><th>ceiling</th><th>reported</th>` +
      `<th>cached</th><th>carried</th><th>stubbed</th><th>re-read</th><th>refused</th><th>failed</th></tr></thead><tbody>` +
      [...trace.steps]
        .sort((a, b) => a.step - b.step)
        .map(stepRow)
        .join("") +
      `</tbody></table>`,
  );
  return parts.join("");
}
