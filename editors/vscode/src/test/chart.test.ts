import assert from "node:assert/strict";
import { test } from "node:test";
import { barOf, barTitle, chartData, renderChart } from "../chart";
import type { TraceRun, TraceStepRow } from "../protocol";

function step(n: number, extra: Partial<TraceStepRow> = {}): TraceStepRow {
  return {
    step: n,
    estTokens: 1000 * n,
    contextCeiling: 24_000,
    reportedPromptTokens: 1100 * n,
    carried: n,
    stubbed: 0,
    reread: 0,
    ...extra,
  };
}

function trace(steps: TraceStepRow[]): TraceRun {
  return {
    run: { runId: 7, goal: "g", workspace: "/ws", outcome: "finished", steps: steps.length, spentTokens: 1 },
    steps,
  };
}

test("a bar per step, in step order, request vs ceiling, cached share when reported", () => {
  const data = chartData(
    trace([
      step(2, { cachedPromptTokens: 1100, stubbed: 1, toolCalls: [{ name: "read_file", arguments: {} }] }),
      step(1),
      step(3, { reread: 2, contextCeiling: 20_000 }),
    ]),
  );
  assert.deepEqual(
    data.bars.map((b) => [b.step, b.request, b.ceiling, b.cachedShare, b.stubbed, b.reread]),
    [
      [1, 1000, 24_000, null, 0, 0],
      [2, 2000, 24_000, 0.5, 1, 0],
      [3, 3000, 20_000, null, 0, 2],
    ],
  );
  assert.equal(data.max, 24_000, "the axis reaches the highest ceiling");
  assert.deepEqual(data.bars[1].tools, ["read_file"]);
});

test("fields an older server does not send: no ceiling, no cache, no refused/failed", () => {
  const bar = barOf({ step: 1, estTokens: 500 });
  assert.deepEqual(bar, {
    step: 1,
    request: 500,
    reported: null,
    cached: null,
    cachedShare: null,
    ceiling: null,
    stubbed: 0,
    reread: 0,
    refused: 0,
    failed: 0,
    tools: [],
  });
  assert.equal(chartData(trace([{ step: 1, estTokens: 0 }])).max, 1, "never a zero scale");
});

test("a request above its ceiling puts the axis at the request", () => {
  assert.equal(chartData(trace([step(1, { estTokens: 30_000 })])).max, 30_000);
});

test("cached share is clamped to [0, 1]", () => {
  assert.equal(barOf(step(1, { reportedPromptTokens: 100, cachedPromptTokens: 150 })).cachedShare, 1);
  assert.equal(barOf(step(1, { reportedPromptTokens: 0, cachedPromptTokens: 0 })).cachedShare, null);
});

test("the SVG: one clickable bar per step, cached segments, marks, the ceiling line", () => {
  const svg = renderChart(
    chartData(trace([step(1), step(2, { cachedPromptTokens: 2200, stubbed: 1 }), step(3, { reread: 1 })])),
  );
  assert.equal(svg.match(/<g class="bar" data-step="\d+"/g)?.length, 3);
  assert.equal(svg.match(/class="cached"/g)?.length, 1);
  assert.equal(svg.match(/class="mark stubbed"/g)?.length, 1);
  assert.equal(svg.match(/class="mark reread"/g)?.length, 1);
  assert.equal(svg.match(/<polyline class="ceiling"/g)?.length, 1);
  assert.ok(svg.startsWith("<svg") && svg.endsWith("</svg>"));
});

test("bar heights follow the scale: a request at the ceiling reaches the top line", () => {
  const svg = renderChart(chartData(trace([step(1, { estTokens: 24_000 }), step(2, { estTokens: 12_000 })])), {
    width: 400,
    height: 200,
  });
  const heights = [...svg.matchAll(/class="request" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)"/g)].map(
    (m) => Number(m[1]),
  );
  const plot = 200 - 18 - 34;
  assert.deepEqual(heights, [plot, plot / 2]);
});

test("hover text has the exact figures, and tool names are escaped", () => {
  const bar = barOf(step(2, { cachedPromptTokens: 1100, toolCalls: [{ name: "<x>", arguments: {} }] }));
  assert.match(barTitle(bar), /Request: 2,000 tokens \(estimated\) of a 24,000 ceiling/);
  assert.match(barTitle(bar), /Provider: 2,200 prompt tokens, 1,100 cached \(50%\)/);
  const svg = renderChart({ runId: 1, bars: [bar], max: 24_000 });
  assert.ok(svg.includes("&lt;x&gt;") && !svg.includes("<x>"));
});
