"""The generic code that drives any ``OracleContext`` (docs/DESIGN.md section 4):
differential evaluation, tolerance comparison, cross-backend and port checks, worker
processes and sessions, the schedule tuner and certification. It reaches hardware only
through the contract and the registry, and never names a backend. The contract itself
lives in ``forge.contract``; it is re-exported here as ``oracle.OracleContext``.

The public names are loaded on first use (``__getattr__``, PEP 562), so importing one
module of the package (``oracle._spawn``, with which the command line starts its
worker processes before anything else) costs that module alone."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names below are, for type checkers; loaded lazily at run time
    from forge.contract import TIMING_SOURCES, OracleContext

    from ._certify import (
        MANIFEST_FORMAT,
        Certification,
        cache_dir,
        canonical_json,
        certificate_key,
        certify,
        find_certificate,
    )
    from ._compare import (
        MASKED_NONFINITE,
        Comparison,
        Mismatch,
        compare,
        element_matches,
        flush_subnormals,
        nonfinite_expected,
        ulp_distance,
    )
    from ._cross_check import (
        CheckOptions,
        CrossCheck,
        PairCheck,
        Prepared,
        check_many,
        cross_check,
        prepare_while,
    )
    from ._evaluate import (
        DEFAULT_GUARD,
        DEFAULT_TIMEOUT_S,
        REFERENCE_BACKEND,
        check_host_memory,
        choose_schedule,
        evaluate,
        evaluate_case,
        expected_from_backend,
    )
    from ._expected import Expected, expected_outputs
    from ._fleet import Fleet, PooledRunner, fan_out
    from ._inputs import FAMILIES, INPUT_SETS, Case, make_case
    from ._plan import BackendInfo, Outcome, Plan, build_plan, execute
    from ._results import (
        Evaluation,
        Finding,
        FloatSemantics,
        OutputCheck,
        Timing,
        Verdict,
        format_duration,
    )
    from ._run import run
    from ._runners import InProcessRunner, Runner
    from ._session import Session
    from ._strategies import STRATEGIES
    from ._tolerance import DEFAULT_TOLERANCES, Tolerance, default_tolerance, resolve_tolerance
    from ._tune import (
        TUNE_FORMAT,
        Budget,
        Candidate,
        TuneResult,
        candidate_space,
        declare_winner,
        schedule_space,
        tune,
    )
    from ._tuning_cache import TuningCache, find_tuned, save_tuned
    from ._workers import WorkerRunner

_LAZY = {
    "TIMING_SOURCES": "forge.contract",
    "OracleContext": "forge.contract",
    "MANIFEST_FORMAT": "._certify",
    "Certification": "._certify",
    "cache_dir": "._certify",
    "canonical_json": "._certify",
    "certificate_key": "._certify",
    "certify": "._certify",
    "find_certificate": "._certify",
    "MASKED_NONFINITE": "._compare",
    "Comparison": "._compare",
    "Mismatch": "._compare",
    "compare": "._compare",
    "element_matches": "._compare",
    "flush_subnormals": "._compare",
    "nonfinite_expected": "._compare",
    "ulp_distance": "._compare",
    "CheckOptions": "._cross_check",
    "CrossCheck": "._cross_check",
    "PairCheck": "._cross_check",
    "Prepared": "._cross_check",
    "check_many": "._cross_check",
    "cross_check": "._cross_check",
    "prepare_while": "._cross_check",
    "DEFAULT_GUARD": "._evaluate",
    "DEFAULT_TIMEOUT_S": "._evaluate",
    "REFERENCE_BACKEND": "._evaluate",
    "check_host_memory": "._evaluate",
    "choose_schedule": "._evaluate",
    "evaluate": "._evaluate",
    "evaluate_case": "._evaluate",
    "expected_from_backend": "._evaluate",
    "Expected": "._expected",
    "expected_outputs": "._expected",
    "Fleet": "._fleet",
    "PooledRunner": "._fleet",
    "fan_out": "._fleet",
    "FAMILIES": "._inputs",
    "INPUT_SETS": "._inputs",
    "Case": "._inputs",
    "make_case": "._inputs",
    "BackendInfo": "._plan",
    "Outcome": "._plan",
    "Plan": "._plan",
    "build_plan": "._plan",
    "execute": "._plan",
    "Evaluation": "._results",
    "Finding": "._results",
    "FloatSemantics": "._results",
    "OutputCheck": "._results",
    "Timing": "._results",
    "Verdict": "._results",
    "format_duration": "._results",
    "run": "._run",
    "InProcessRunner": "._runners",
    "Runner": "._runners",
    "Session": "._session",
    "STRATEGIES": "._strategies",
    "DEFAULT_TOLERANCES": "._tolerance",
    "Tolerance": "._tolerance",
    "default_tolerance": "._tolerance",
    "resolve_tolerance": "._tolerance",
    "TUNE_FORMAT": "._tune",
    "Budget": "._tune",
    "Candidate": "._tune",
    "TuneResult": "._tune",
    "candidate_space": "._tune",
    "declare_winner": "._tune",
    "schedule_space": "._tune",
    "tune": "._tune",
    "TuningCache": "._tuning_cache",
    "find_tuned": "._tuning_cache",
    "save_tuned": "._tuning_cache",
    "WorkerRunner": "._workers",
}

__all__ = [
    "OracleContext",
    "TIMING_SOURCES",
    "evaluate",
    "run",
    "Evaluation",
    "OutputCheck",
    "Finding",
    "Timing",
    "Verdict",
    "evaluate_case",
    "expected_outputs",
    "expected_from_backend",
    "Expected",
    "FloatSemantics",
    "choose_schedule",
    "format_duration",
    "REFERENCE_BACKEND",
    "DEFAULT_GUARD",
    "DEFAULT_TIMEOUT_S",
    "check_host_memory",
    "compare",
    "Comparison",
    "Mismatch",
    "ulp_distance",
    "element_matches",
    "flush_subnormals",
    "nonfinite_expected",
    "MASKED_NONFINITE",
    "Tolerance",
    "DEFAULT_TOLERANCES",
    "default_tolerance",
    "resolve_tolerance",
    "make_case",
    "Case",
    "FAMILIES",
    "INPUT_SETS",
    "Session",
    "Runner",
    "InProcessRunner",
    "WorkerRunner",
    "BackendInfo",
    "Plan",
    "Outcome",
    "build_plan",
    "execute",
    "cross_check",
    "check_many",
    "prepare_while",
    "Prepared",
    "CheckOptions",
    "CrossCheck",
    "PairCheck",
    "tune",
    "TuneResult",
    "Candidate",
    "schedule_space",
    "declare_winner",
    "Budget",
    "candidate_space",
    "STRATEGIES",
    "TUNE_FORMAT",
    "TuningCache",
    "find_tuned",
    "save_tuned",
    "certify",
    "Certification",
    "find_certificate",
    "certificate_key",
    "cache_dir",
    "canonical_json",
    "MANIFEST_FORMAT",
    "Fleet",
    "PooledRunner",
    "fan_out",
    "assert_matches_reference",
]


def __getattr__(name: str) -> Any:
    """A public name's value, its module imported on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'oracle' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def assert_matches_reference(ctx, kernel, **options) -> Evaluation:
    """Evaluate ``kernel`` on ``ctx`` (options as for ``evaluate``) and raise
    ``forge.OracleMismatch`` (an AssertionError) carrying the full report unless it
    passed; returns the evaluation otherwise. The assertion behind the pytest plugin."""
    from ._evaluate import evaluate

    return evaluate(ctx, kernel, **options).raise_for_failure()
