"""The OracleContext contract and the generic code that drives it (DESIGN.md section 4):
differential evaluation, tolerance comparison, cross-backend checks, the schedule
tuner and certification manifests. It reaches hardware only through
``OracleContext`` and the registry, and never names a backend (the numpy reference
is the oracle's own truth)."""

from ._certify import (MANIFEST_FORMAT, Certification, cache_dir, canonical_json, certificate_key,
                       certify, find_certificate)
from ._compare import (MASKED_NONFINITE, Comparison, Mismatch, compare, element_matches,
                       flush_subnormals, nonfinite_expected, ulp_distance)
from ._cross_check import CrossCheck, PairCheck, cross_check
from ._evaluate import (DEFAULT_GUARD, DEFAULT_TIMEOUT_S, REFERENCE_BACKEND, Evaluation, Expected,
                        FloatSemantics, OutputCheck, Timing, choose_schedule, evaluate,
                        evaluate_case, expected_outputs, format_duration)
from ._inputs import FAMILIES, Case, make_case
from ._tolerance import DEFAULT_TOLERANCES, Tolerance, default_tolerance, resolve_tolerance
from ._tune import Candidate, TuneResult, declare_winner, schedule_space, tune
from forge.contract import TIMING_SOURCES, OracleContext

__all__ = [
    "OracleContext", "TIMING_SOURCES",
    "evaluate", "Evaluation", "OutputCheck", "Timing", "evaluate_case", "expected_outputs",
    "Expected", "FloatSemantics", "choose_schedule", "format_duration", "REFERENCE_BACKEND",
    "DEFAULT_GUARD", "DEFAULT_TIMEOUT_S",
    "compare", "Comparison", "Mismatch", "ulp_distance", "element_matches", "flush_subnormals",
    "nonfinite_expected", "MASKED_NONFINITE",
    "Tolerance", "DEFAULT_TOLERANCES", "default_tolerance", "resolve_tolerance",
    "make_case", "Case", "FAMILIES",
    "cross_check", "CrossCheck", "PairCheck",
    "tune", "TuneResult", "Candidate", "schedule_space", "declare_winner",
    "certify", "Certification", "find_certificate", "certificate_key", "cache_dir",
    "canonical_json", "MANIFEST_FORMAT",
    "assert_matches_reference",
]


def assert_matches_reference(ctx, kernel, **options) -> Evaluation:
    """Evaluate ``kernel`` on ``ctx`` (options as for ``evaluate``) and raise
    ``forge.OracleMismatch`` (an AssertionError) carrying the full report unless it
    passed; returns the evaluation otherwise. The assertion behind the pytest plugin."""
    return evaluate(ctx, kernel, **options).raise_for_failure()
