"""The editor settings (§7) as docs/server.md's table shows them, with the command-line
flag that does the same. A test keeps the keys equal to ``server.lsp.settings.Settings``'s
fields; ``make protocol`` writes the table (marker ``settings``)."""

from __future__ import annotations

from server.protocol.model import Setting

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "provider.name",
        '`"openai"` | `"anthropic"` | `"openrouter"` | `"ollama"`',
        "`$HARNESS_PROVIDER`, else `openai`",
        "which model API",
        flag="--provider",
    ),
    Setting(
        "provider.model",
        "string",
        "`$HARNESS_MODEL`, else the provider's default",
        "model name",
        flag="--model",
    ),
    Setting(
        "provider.baseUrl",
        "`http://…` or `https://…`",
        "`$HARNESS_BASE_URL`, else the provider's URL",
        ("an OpenAI-compatible server (vLLM, llama.cpp, a proxy); a custom URL needs no key"),
        flag="--base-url",
    ),
    Setting(
        "provider.apiKeyEnv",
        "string",
        "the provider's usual variable",
        "the environment variable holding the key (after `HARNESS_API_KEY`)",
        flag="--api-key-env",
    ),
    Setting(
        "storePath",
        "absolute path (`~` allowed)",
        "`$HARNESS_STORE`, else `<user data dir>/harness/harness.db`",
        "the SQLite store: trace and memory",
        flag="--store",
    ),
    Setting(
        "tokenBudget",
        "integer ≥ 1",
        "2000000",
        "tokens a run may spend",
        flag="--budget",
    ),
    Setting(
        "maxSteps",
        "integer ≥ 1",
        "100",
        "steps a run may take",
        flag="--max-steps",
    ),
    Setting(
        "contextBudget.maxTokens",
        "integer ≥ 1",
        "24000",
        "ceiling of one request's observations",
    ),
    Setting(
        "contextBudget.share",
        "number in (0, 1]",
        "0.5",
        "share of the unspent budget one request may carry",
    ),
    Setting(
        "contextBudget.lowWater",
        "number in (0, 1]",
        "0.25",
        "when a request is full, the window slides back to this share of its ceiling",
    ),
    Setting(
        "contextBudget.cacheIdleSeconds",
        "number > 0",
        "the provider's: 300 for `anthropic`, else 600",
        (
            "idle seconds after which the provider's prompt cache is taken as expired; the next "
            "request slides first (it pays the whole write anyway) and its `assembled` event has "
            "`freeSlide: true`"
        ),
    ),
    Setting(
        "contextWire",
        '`"transcript"` | `"flat"`',
        "`transcript`",
        "observations as the model's turns and tool messages, or in one user message",
    ),
    Setting(
        "policy",
        (
            '`{"defaults": {"read"|"write"|"exec": "allow"|"ask"|"deny"}, "rules": [{"act", '
            '"effect", "glob"}], "exec": {"sandbox": "auto"|"required"|"off", "network": '
            "bool}}`"
        ),
        "none",
        (
            "the `editor` policy layer, same shape as `.harness/policy.toml`; evaluated with the "
            "user and workspace layers, deny first; like the user config, it may loosen `[exec]`"
        ),
    ),
    Setting(
        "trusted",
        "bool",
        "unset",
        (
            "the client's own workspace-trust verdict for its folders (VS Code's Workspace "
            "Trust); unset: the `trusted` list of the user config decides (README, Permission "
            "policy)"
        ),
    ),
    Setting(
        "prices",
        '`{"MODEL": {"input", "output", "cacheRead"?, "cacheWrite"?}}`',
        "none",
        "dollars per million tokens per model (§11), over the user's `prices.toml`; a bad "
        "model's entry is dropped, the others apply",
    ),
)

__all__ = ["SETTINGS"]
