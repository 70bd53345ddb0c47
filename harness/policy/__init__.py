"""The permission policy (§6.3): rules in layers evaluated deny-first, the built-in secrets
layer, loading the policy under workspace trust, the ``[exec]`` table (§6.6), and the
``Gate`` that asks an approver and remembers run-wide grants.

    rules      Rule, Layer, Verdict, RuleSet (explain), the secrets and "runs later" layers
    trust      the trusted folders of the user config, and recording trust
    loading    parse_layer, Policy (Policy.load: user config, workspace file, editor)
    approval   what an approver shows (whole, escaped, cut only with a count); Yes/Unavailable
    gate       Gate, Decision, refusal messages

The terminal approver lives with the command line (``harness.cli.approve``), the editor's
with the server (``server.lsp.approvals``).
"""

from typing import TYPE_CHECKING

from harness.exports import lazy_exports

if TYPE_CHECKING:
    from harness.policy.approval import (
        NEWLINE_MARK,
        Preview,
        UnavailableApprover,
        YesApprover,
        full_view,
        preview,
        shown,
    )
    from harness.policy.gate import NO_APPROVAL_REMEDY, Decision, Gate
    from harness.policy.home import ALLOW_HOME_KEY, is_home_or_top, root_refusal
    from harness.policy.loading import (
        EDITOR_LAYER,
        USER_LAYER,
        WORKSPACE_LAYER,
        LayerConfig,
        Policy,
        default_user_config,
        parse_layer,
        workspace_config,
    )
    from harness.policy.rules import (
        BUILTIN_LAYER,
        DEFAULT_LAYER,
        DEFAULTS,
        RUNS_LATER_GLOBS,
        RUNS_LATER_LAYER,
        SECRET_GLOBS,
        SPEC_RUNS_LATER_GLOBS,
        Layer,
        Rule,
        RuleSet,
        Verdict,
        builtin_layer,
        runs_later,
    )
    from harness.policy.trust import TrustChange, covering, record_trust

# Loaded on first use: importing one submodule does not import its siblings.
__getattr__ = lazy_exports(
    __name__,
    {
        "approval": (
            "NEWLINE_MARK",
            "Preview",
            "UnavailableApprover",
            "YesApprover",
            "full_view",
            "preview",
            "shown",
        ),
        "gate": (
            "NO_APPROVAL_REMEDY",
            "Decision",
            "Gate",
        ),
        "home": (
            "ALLOW_HOME_KEY",
            "is_home_or_top",
            "root_refusal",
        ),
        "loading": (
            "EDITOR_LAYER",
            "USER_LAYER",
            "WORKSPACE_LAYER",
            "LayerConfig",
            "Policy",
            "default_user_config",
            "parse_layer",
            "workspace_config",
        ),
        "rules": (
            "BUILTIN_LAYER",
            "DEFAULT_LAYER",
            "DEFAULTS",
            "RUNS_LATER_GLOBS",
            "RUNS_LATER_LAYER",
            "SECRET_GLOBS",
            "SPEC_RUNS_LATER_GLOBS",
            "Layer",
            "Rule",
            "RuleSet",
            "Verdict",
            "builtin_layer",
            "runs_later",
        ),
        "trust": (
            "TrustChange",
            "covering",
            "record_trust",
        ),
    },
)

__all__ = [
    "ALLOW_HOME_KEY",
    "BUILTIN_LAYER",
    "DEFAULTS",
    "DEFAULT_LAYER",
    "EDITOR_LAYER",
    "NEWLINE_MARK",
    "NO_APPROVAL_REMEDY",
    "RUNS_LATER_GLOBS",
    "RUNS_LATER_LAYER",
    "SECRET_GLOBS",
    "SPEC_RUNS_LATER_GLOBS",
    "USER_LAYER",
    "WORKSPACE_LAYER",
    "Decision",
    "Gate",
    "Layer",
    "LayerConfig",
    "Policy",
    "Preview",
    "Rule",
    "RuleSet",
    "TrustChange",
    "UnavailableApprover",
    "Verdict",
    "YesApprover",
    "builtin_layer",
    "covering",
    "default_user_config",
    "full_view",
    "is_home_or_top",
    "parse_layer",
    "preview",
    "record_trust",
    "root_refusal",
    "runs_later",
    "shown",
    "workspace_config",
]
