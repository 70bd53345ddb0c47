/**
 * The trace view's chart: request tokens per step against the step's ceiling, the cached
 * share of each request, and marks where something was stubbed or re-read. `chartData` turns
 * a `harness.trace.run` result into bars; `renderChart` draws them as SVG. Pure, unit-tested.
 */
import { escapeHtml } from "./html";
import { exact, percent, short, toolLabel } from "./format";
import type { TraceRun, TraceStepRow } from "./protocol";

export interface Bar {
  step: number;
  /** Estimated tokens of the whole request (what the ceiling bounds). */
  request: number;
  /** The provider's count of prompt tokens, when it reported one. */
  reported: number | null;
  /** Prompt tokens the provider read from its cache, when it reported them. */
  cached: number | null;
  /** cached / reported, in [0, 1], when both are known. */
  cachedShare: number | null;
  ceiling: number | null;
  stubbed: number;
  reread: number;
  refused: number;
  failed: number;
  tools: string[];
}

export interface ChartData {
  runId: number;
  bars: Bar[];
  /** The top of the y axis: the largest request or ceiling (at least 1). */
  max: number;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function known(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function barOf(s: TraceStepRow): Bar {
  const reported = known(s.reportedPromptTokens);
  const cached = known(s.cachedPromptTokens);
  const share =
    reported !== null && cached !== null && reported > 0 ? Math.min(1, Math.max(0, cached / reported)) : null;
  return {
    step: s.step,
    request: count(s.estTokens),
    reported,
    cached,
    cachedShare: share,
    ceiling: known(s.contextCeiling),
    stubbed: count(s.stubbed),
    reread: count(s.reread),
    refused: count(s.refused),
    failed: count(s.failed),
    tools: (s.toolCalls ?? []).map(toolLabel),
  };
}

export function chartData(trace: TraceRun): ChartData {
  const bars = [...trace.steps].sort((a, b) => a.step - b.step).map(barOf);
  const max = Math.max(1, ...bars.map((b) => Math.max(b.request, b.ceiling ?? 0)));
  return { runId: trace.run.runId, bars, max };
}

export interface ChartSize {
  width: number;
  height: number;
}

const PAD = { left: 48, right: 12, top: 18, bottom: 34 };

/** A bar's hover text: every figure, exactly. */
export function barTitle(b: Bar): string {
  const lines = [`Step ${b.step}${b.tools.length ? ` · ${b.tools.join(", ")}` : ""}`];
  lines.push(
    `Request: ${exact(b.request)} tokens (estimated)${b.ceiling !== null ? ` of a ${exact(b.ceiling)} ceiling` : ""}`,
  );
  if (b.reported !== null) {
    const cached = b.cachedShare !== null ? `, ${exact(b.cached ?? 0)} cached (${percent(b.cachedShare)})` : "";
    lines.push(`Provider: ${exact(b.reported)} prompt tokens${cached}`);
  }
  const marks = [
    b.stubbed ? `${b.stubbed} stubbed` : "",
    b.reread ? `${b.reread} re-read` : "",
    b.refused ? `${b.refused} refused` : "",
    b.failed ? `${b.failed} failed` : "",
  ].filter(Boolean);
  if (marks.length) lines.push(marks.join(" · "));
  lines.push("Click to open the full prompt and results.");
  return lines.join("\n");
}

/** The chart as an SVG element; each bar is a `g.bar[data-step]` the view makes clickable. */
export function renderChart(data: ChartData, size: ChartSize = { width: 720, height: 240 }): string {
  const { width, height } = size;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const n = Math.max(1, data.bars.length);
  const slot = plotW / n;
  const barW = Math.max(2, Math.min(40, slot * 0.7));
  const y = (v: number): number => PAD.top + plotH - (Math.min(v, data.max) / data.max) * plotH;
  const x = (i: number): number => PAD.left + i * slot + (slot - barW) / 2;
  const parts: string[] = [];
  parts.push(
    `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="Request tokens per step of run ${data.runId}">`,
  );
  parts.push(axes(data, width, height, y));
  data.bars.forEach((b, i) => parts.push(bar(b, x(i), barW, y)));
  parts.push(ceilingLine(data, slot, y));
  parts.push(stepLabels(data, slot, height));
  parts.push("</svg>");
  return parts.join("");
}

function axes(data: ChartData, width: number, height: number, y: (v: number) => number): string {
  const ticks = [0, data.max / 2, data.max];
  const lines = ticks.map(
    (t) =>
      `<line class="grid" x1="${PAD.left}" x2="${width - PAD.right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}"/>` +
      `<text class="tick" x="${PAD.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${short(t)}</text>`,
  );
  return `<g class="axes">${lines.join("")}<text class="axis-label" x="${PAD.left}" y="${height - 4}">step</text></g>`;
}

function bar(b: Bar, left: number, w: number, y: (v: number) => number): string {
  const top = y(b.request);
  const bottom = y(0);
  const out = [
    `<g class="bar" data-step="${b.step}" tabindex="0" role="button"><title>${escapeHtml(barTitle(b))}</title>`,
  ];
  out.push(
    `<rect class="request" x="${left.toFixed(1)}" y="${top.toFixed(1)}" width="${w.toFixed(1)}" height="${(bottom - top).toFixed(1)}"/>`,
  );
  if (b.cachedShare !== null && b.cachedShare > 0) {
    const h = (bottom - top) * b.cachedShare;
    out.push(
      `<rect class="cached" x="${left.toFixed(1)}" y="${(bottom - h).toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}"/>`,
    );
  }
  const cx = left + w / 2;
  let markY = top - 6;
  if (b.reread) {
    out.push(`<path class="mark reread" d="M${(cx - 4).toFixed(1)} ${markY.toFixed(1)} l4 -7 l4 7 z"/>`);
    markY -= 10;
  }
  if (b.stubbed) {
    out.push(
      `<rect class="mark stubbed" x="${(cx - 3.5).toFixed(1)}" y="${(markY - 7).toFixed(1)}" width="7" height="7"/>`,
    );
  }
  out.push("</g>");
  return out.join("");
}

function ceilingLine(data: ChartData, slot: number, y: (v: number) => number): string {
  const points: string[] = [];
  data.bars.forEach((b, i) => {
    if (b.ceiling === null) return;
    const left = PAD.left + i * slot;
    points.push(
      `${left.toFixed(1)},${y(b.ceiling).toFixed(1)}`,
      `${(left + slot).toFixed(1)},${y(b.ceiling).toFixed(1)}`,
    );
  });
  return points.length
    ? `<polyline class="ceiling" points="${points.join(" ")}"><title>ceiling per request</title></polyline>`
    : "";
}

function stepLabels(data: ChartData, slot: number, height: number): string {
  const every = Math.max(1, Math.ceil(data.bars.length / 20));
  return data.bars
    .map((b, i) =>
      i % every === 0 || i === data.bars.length - 1
        ? `<text class="tick" x="${(PAD.left + i * slot + slot / 2).toFixed(1)}" y="${height - PAD.bottom + 14}" text-anchor="middle">${b.step}</text>`
        : "",
    )
    .join("");
}
