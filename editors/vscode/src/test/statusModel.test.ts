import assert from "node:assert/strict";
import { test } from "node:test";
import type { Budget, Status } from "../protocol";
import { StatusModel } from "../statusModel";

function budget(runId: number, spent: number, step = 1): Budget {
  return {
    runId,
    step,
    maxSteps: 100,
    spentTokens: spent,
    tokenBudget: 2_000_000,
    requestTokens: 900,
    contextCeiling: 24_000,
  };
}

function status(partial: Partial<Status> = {}): Status {
  return {
    runs: [],
    lastBudget: null,
    memory: {
      workspace: { scope: "/ws", entries: 2, chars: 10, pinned: 0, maxEntries: 64, maxChars: 16_000 },
      global: { scope: "global", entries: 1, chars: 5, pinned: 0, maxEntries: 64, maxChars: 16_000 },
    },
    ...partial,
  };
}

test("before any run: the notes count from harness.status", () => {
  const m = new StatusModel();
  assert.equal(m.view().text, "$(pulse) harness");
  m.status(status());
  assert.deepEqual(m.view(), {
    text: "$(pulse) harness · 3 notes",
    tooltip:
      "Harness: 2 notes for this workspace (at most 64), 1 global.\nNo run yet in this window. Click to open the trace.",
    warning: false,
    approval: false,
  });
});

test("a run: starting, then its budget, then its outcome until the next run starts", () => {
  const m = new StatusModel();
  m.status(status());
  m.runStarted(7);
  assert.equal(m.view().text, "$(pulse) run 7 · starting");
  m.budget(budget(7, 48_210, 3));
  assert.equal(m.view().text, "$(pulse) 48.2k/2M · 900/24k");
  m.runFinished({ runId: 7, outcome: "finished", steps: 3, spentTokens: 48_500 });
  assert.equal(m.view().text, "$(pulse) 48.5k/2M · 900/24k · finished");
  assert.equal(m.shownRun(), 7);
  m.status(status()); // a notes refresh does not take the outcome away
  assert.equal(m.view().text, "$(pulse) 48.5k/2M · 900/24k · finished");
  m.runStarted(8);
  assert.equal(m.view().text, "$(pulse) run 8 · starting");
});

test("warning colour past 80% of the budget", () => {
  const m = new StatusModel();
  m.budget(budget(1, 1_700_000));
  assert.equal(m.view().warning, true);
  m.budget(budget(1, 1_000));
  assert.equal(m.view().warning, false);
});

test("a window that starts mid-run shows the run from harness.status", () => {
  const m = new StatusModel();
  const last = budget(4, 12_000, 2);
  m.status(
    status({
      runs: [
        {
          runId: 4,
          goal: "g",
          workspace: "/ws",
          step: 2,
          maxSteps: 100,
          spentTokens: 12_000,
          tokenBudget: 2_000_000,
          lastBudget: last,
        },
      ],
    }),
  );
  assert.equal(m.view().text, "$(pulse) 12k/2M · 900/24k");
  assert.deepEqual(m.activeRuns(), [4]);
});

test("a run without a budget yet in harness.status shows as starting", () => {
  const m = new StatusModel();
  m.status(
    status({
      runs: [
        {
          runId: 5,
          goal: "g",
          workspace: "/ws",
          step: 0,
          maxSteps: 100,
          spentTokens: 0,
          tokenBudget: 2_000_000,
          lastBudget: null,
        },
      ],
    }),
  );
  assert.equal(m.view().text, "$(pulse) run 5 · starting");
});

test("two runs side by side: the one heard from last; the other stays after one ends", () => {
  const m = new StatusModel();
  m.budget(budget(1, 1_000));
  m.budget(budget(2, 2_000));
  assert.equal(m.view().text, "$(pulse) 2k/2M · 900/24k");
  m.runFinished({ runId: 2, outcome: "finished", steps: 1, spentTokens: 2_000 });
  assert.equal(m.view().text, "$(pulse) 1k/2M · 900/24k", "run 1 is still active");
  m.runFinished({ runId: 1, outcome: "cancelled", steps: 1, spentTokens: 1_000 });
  assert.equal(m.view().text, "$(pulse) 1k/2M · 900/24k · cancelled");
});

test("a run that ends before its first budget", () => {
  const m = new StatusModel();
  m.runStarted(3);
  m.runFinished({ runId: 3, outcome: "provider_error", steps: 0, spentTokens: 0 });
  assert.equal(m.view().text, "$(pulse) run 3 · provider error");
});

test("a new server process forgets the runs of the one before", () => {
  const m = new StatusModel();
  m.budget(budget(1, 1_000));
  m.runFinished({ runId: 1, outcome: "finished", steps: 1, spentTokens: 1_000 });
  m.budget(budget(2, 2_000));
  m.serverStarted();
  assert.deepEqual(m.activeRuns(), []);
  assert.equal(m.view().text, "$(pulse) harness", "run 2 was never seen to finish, nothing to show");
  m.status(status());
  assert.equal(m.view().text, "$(pulse) harness · 3 notes");
});

test("issue 23 item 2: while an approval waits the item says so (and what), then goes back", () => {
  const m = new StatusModel();
  m.budget(budget(5, 48_210, 5));
  m.approvalWaiting({ runId: 5, callId: "c1", act: "exec", target: "pytest -q" });
  const v = m.view();
  assert.match(v.text, /^\$\(bell\) approval waiting · exec pytest -q/);
  assert.match(v.tooltip, /Click to answer it/);
  assert.equal(v.warning, true);
  assert.equal(v.approval, true);
  m.approvalAnswered(5, "c1");
  assert.equal(m.view().approval, false);
  assert.match(m.view().text, /48\.2k\/2M/);
});

test("a run that finished before harness.run answered never leaves the item busy (x30)", () => {
  const m = new StatusModel();
  for (let runId = 1; runId <= 30; runId++) {
    // The fake provider answers at once: its budget and end arrive before the run's id does.
    m.budget(budget(runId, 100));
    m.runFinished({ runId, outcome: "finished", steps: 1, spentTokens: 100, refused: 0, denied: 0, failed: 0 });
    m.runStarted(runId);
    m.status(
      status({
        runs: [
          {
            runId,
            goal: "g",
            workspace: "/ws",
            step: 1,
            maxSteps: 100,
            spentTokens: 1,
            tokenBudget: 9,
            lastBudget: null,
            awaitingApproval: false,
          },
        ] as unknown as Status["runs"],
      }),
    );
    assert.deepEqual(m.activeRuns(), []);
    assert.doesNotMatch(m.view().text, /starting/);
  }
  assert.match(m.view().text, /finished/);
});
