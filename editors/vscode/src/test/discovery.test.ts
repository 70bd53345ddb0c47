import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { expandSetting, findServer, isExecutableFile } from "../discovery";

function tree(): { root: string; ws: string; bin: string; home: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "harness-discovery-"));
  const ws = path.join(root, "ws");
  const bin = path.join(root, "bin");
  const home = path.join(root, "home");
  for (const d of [ws, bin, home]) fs.mkdirSync(d);
  return { root, ws, bin, home };
}

function exe(file: string, mode = 0o755): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "#!/bin/sh\n");
  fs.chmodSync(file, mode);
  return file;
}

test("the setting wins over the workspace .venv and PATH", () => {
  const t = tree();
  const chosen = exe(path.join(t.root, "custom", "harness-lsp"));
  exe(path.join(t.ws, ".venv", "bin", "harness-lsp"));
  exe(path.join(t.bin, "harness-lsp"));
  const found = findServer({
    setting: chosen,
    folders: [t.ws],
    trusted: true,
    envPath: t.bin,
    home: t.home,
    platform: "linux",
  });
  assert.deepEqual(found, { found: true, command: chosen, source: "setting" });
});

test("then the workspace's .venv, then PATH", () => {
  const t = tree();
  const venv = exe(path.join(t.ws, ".venv", "bin", "harness-lsp"));
  const onPath = exe(path.join(t.bin, "harness-lsp"));
  const input = {
    setting: "",
    folders: [t.ws],
    trusted: true,
    envPath: `/nonexistent:${t.bin}`,
    home: t.home,
    platform: "linux" as const,
  };
  assert.deepEqual(findServer(input), { found: true, command: venv, source: "workspace" });
  fs.rmSync(venv);
  assert.deepEqual(findServer(input), { found: true, command: onPath, source: "path" });
});

test("an untrusted workspace's .venv is never run", () => {
  const t = tree();
  exe(path.join(t.ws, ".venv", "bin", "harness-lsp"));
  const found = findServer({ folders: [t.ws], trusted: false, envPath: "", home: t.home, platform: "linux" });
  assert.equal(found.found, false);
  assert.ok(!found.found && found.tried[0].includes("skipped: the workspace is not trusted"), JSON.stringify(found));
});

test("nothing found: a clear problem and what was tried", () => {
  const t = tree();
  const found = findServer({ folders: [t.ws], trusted: true, envPath: t.bin, home: t.home, platform: "linux" });
  assert.deepEqual(found, {
    found: false,
    problem: "The Harness language server (harness-lsp) was not found.",
    tried: [path.join(t.ws, ".venv", "bin", "harness-lsp"), "harness-lsp on PATH"],
  });
});

test("a setting that points nowhere is reported as such, not silently replaced", () => {
  const t = tree();
  exe(path.join(t.bin, "harness-lsp"));
  const found = findServer({
    setting: "/nope/harness-lsp",
    folders: [],
    trusted: true,
    envPath: t.bin,
    home: t.home,
    platform: "linux",
  });
  assert.equal(found.found, false);
  assert.ok(!found.found && found.problem.includes("harness.serverPath points to /nope/harness-lsp"));
});

test("a file that is not executable, or a directory, does not count", () => {
  const t = tree();
  const plain = exe(path.join(t.bin, "harness-lsp"), 0o644);
  assert.equal(isExecutableFile(plain), false);
  assert.equal(isExecutableFile(t.bin), false);
  fs.chmodSync(plain, 0o755);
  assert.equal(isExecutableFile(plain), true);
});

test("~, ${userHome}, ${workspaceFolder} and relative settings", () => {
  assert.equal(expandSetting("~/bin/harness-lsp", [], "/home/u"), "/home/u/bin/harness-lsp");
  assert.equal(expandSetting("${userHome}/x", [], "/home/u"), "/home/u/x");
  assert.equal(expandSetting("${workspaceFolder}/.venv/bin/harness-lsp", ["/ws"], "/h"), "/ws/.venv/bin/harness-lsp");
  assert.equal(expandSetting("tools/harness-lsp", ["/ws"], "/h"), "/ws/tools/harness-lsp");
  assert.equal(expandSetting("${workspaceFolder}/x", [], "/h"), undefined);
});

test("Windows names: Scripts\\harness-lsp.exe and PATH with ;", () => {
  const t = tree();
  const venv = exe(path.join(t.ws, ".venv", "Scripts", "harness-lsp.exe"));
  const found = findServer({
    folders: [t.ws],
    trusted: true,
    envPath: "",
    home: t.home,
    platform: "win32",
    isExecutable: (f) => f === venv,
  });
  assert.deepEqual(found, { found: true, command: venv, source: "workspace" });
});
