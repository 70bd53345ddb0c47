/**
 * Finding the language server (SPEC §10): the `harness.serverPath` setting, then
 * `${workspaceFolder}/.venv/bin/harness-lsp` (only in a trusted workspace: it is the
 * repository's own program), then `harness-lsp` on PATH. Pure apart from the file checks,
 * which are injected; unit-tested against real temporary files.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export const SERVER_NAME = "harness-lsp";

export interface DiscoveryInput {
  /** `harness.serverPath` (empty or undefined: not set). */
  setting?: string;
  /** Workspace folder paths, first one first. */
  folders: readonly string[];
  /** VS Code's Workspace Trust verdict. */
  trusted: boolean;
  /** The extension host's PATH. */
  envPath: string;
  home: string;
  platform?: NodeJS.Platform;
  isExecutable?: (file: string) => boolean;
}

export type Source = "setting" | "workspace" | "path";

export type Discovery =
  { found: true; command: string; source: Source } | { found: false; problem: string; tried: string[] };

export function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `~`, `${userHome}` and `${workspaceFolder}` expanded; a relative path is the first folder's. */
export function expandSetting(value: string, folders: readonly string[], home: string): string | undefined {
  let text = value.trim();
  if (text === "~" || text.startsWith("~/")) text = home + text.slice(1);
  text = text.replace(/\$\{userHome\}/g, home);
  if (text.includes("${workspaceFolder}")) {
    if (folders.length === 0) return undefined;
    text = text.replace(/\$\{workspaceFolder\}/g, folders[0]);
  }
  if (path.isAbsolute(text)) return path.normalize(text);
  return folders.length ? path.join(folders[0], text) : undefined;
}

function exeNames(platform: NodeJS.Platform): string[] {
  return platform === "win32" ? [`${SERVER_NAME}.exe`, `${SERVER_NAME}.cmd`] : [SERVER_NAME];
}

function venvCandidates(folder: string, platform: NodeJS.Platform): string[] {
  const dir = platform === "win32" ? path.join(folder, ".venv", "Scripts") : path.join(folder, ".venv", "bin");
  return exeNames(platform).map((name) => path.join(dir, name));
}

export function findServer(input: DiscoveryInput): Discovery {
  const platform = input.platform ?? process.platform;
  const isExe = input.isExecutable ?? isExecutableFile;
  const setting = input.setting?.trim();
  if (setting) {
    const file = expandSetting(setting, input.folders, input.home);
    if (file !== undefined && isExe(file)) return { found: true, command: file, source: "setting" };
    const where = file === undefined ? `"${setting}" (no workspace folder to resolve it against)` : file;
    return {
      found: false,
      problem: `The setting harness.serverPath points to ${where}, which is not an executable file.`,
      tried: [file ?? setting],
    };
  }
  const tried: string[] = [];
  for (const folder of input.folders) {
    for (const candidate of venvCandidates(folder, platform)) {
      if (!input.trusted) {
        tried.push(`${candidate} (skipped: the workspace is not trusted)`);
        continue;
      }
      tried.push(candidate);
      if (isExe(candidate)) return { found: true, command: candidate, source: "workspace" };
    }
  }
  const sep = platform === "win32" ? ";" : ":";
  for (const dir of input.envPath.split(sep)) {
    if (!dir) continue;
    for (const name of exeNames(platform)) {
      const candidate = path.join(dir, name);
      if (isExe(candidate)) return { found: true, command: candidate, source: "path" };
    }
  }
  tried.push(`${SERVER_NAME} on PATH`);
  return {
    found: false,
    problem: `The Harness language server (${SERVER_NAME}) was not found.`,
    tried,
  };
}
