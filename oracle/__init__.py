"""The generic code that drives any ``OracleContext`` (docs/DESIGN.md section 4):
differential evaluation, tolerance comparison, cross-backend and port checks, worker
processes and sessions, the schedule tuner and certification. It reaches hardware only
through the contract and the registry, and never names a backend. The contract itself
lives in ``forge.contract``; it is re-exported here as ``oracle.OracleContext``."""

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


def assert_matches_reference(ctx, kernel, **options) -> Evaluation:
    """Evaluate ``kernel`` on ``ctx`` (options as for ``evaluate``) and raise
    ``forge.OracleMismatch`` (an AssertionError) carrying the full report unless it
    passed; returns the evaluation otherwise. The assertion behind the pytest plugin."""
    return evaluate(ctx, kernel, **options).raise_for_failure()
