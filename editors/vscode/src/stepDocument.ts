/**
 * One step of the trace as a read-only document: the full prompt as sent (message by
 * message), the tool calls, the full unelided results and the context/policy events.
 * Also the virtual document URI path of a step. Pure, unit-tested.
 */
import { toolLabel } from "./format";
import type { StepDetail } from "./protocol";

export const SCHEME = "harness-trace";

/** `/run-7/step-3.md` */
export function stepPath(runId: number, step: number): string {
  return `/run-${runId}/step-${step}.md`;
}

export function parseStepPath(p: string): { runId: number; step: number } | undefined {
  const m = /^\/run-(\d+)\/step-(\d+)\.md$/.exec(p);
  return m ? { runId: Number(m[1]), step: Number(m[2]) } : undefined;
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(text).join("\n\n");
  if (typeof value === "object" && "text" in value && typeof value.text === "string") return value.text;
  return JSON.stringify(value, null, 2);
}

function message(m: unknown, i: number): string {
  if (typeof m !== "object" || m === null) return `### ${i + 1}\n\n${text(m)}`;
  const rec = m as Record<string, unknown>;
  const role = typeof rec.role === "string" ? rec.role : "message";
  const id = typeof rec.toolCallId === "string" ? ` (answers ${rec.toolCallId})` : "";
  const out = [`### ${i + 1}. ${role}${id}`, "", text(rec.content)];
  if (Array.isArray(rec.toolCalls)) {
    for (const c of rec.toolCalls as unknown[]) out.push("", `→ tool call: ${JSON.stringify(c)}`);
  }
  return out.join("\n");
}

export function stepDocument(d: StepDetail): string {
  const prompt = Array.isArray(d.prompt) ? d.prompt : [d.prompt];
  const out = [
    `# Harness run ${d.runId} · step ${d.step}`,
    "",
    "In this document: tool calls, results, then the prompt as sent (and the step's events).",
    "",
    "## Tool calls",
    "",
  ];
  const calls = d.toolCalls ?? [];
  if (calls.length === 0) out.push("(none)");
  for (const c of calls) out.push(`- ${toolLabel(c)} ${JSON.stringify(c.arguments)}`);
  out.push("", "## Results (full, unelided)", "", d.result || "(none)", "", "## Prompt as sent", "");
  prompt.forEach((m, i) => out.push(message(m, i), ""));
  const events = d.events ?? [];
  if (events.length) {
    out.push("## Events", "");
    for (const e of events) out.push(`- ${e.kind}: ${JSON.stringify(e.detail)}`);
    out.push("");
  }
  return out.join("\n");
}
