"""``kforge check --baseline RESULTS.json``: what got worse against a saved run. A
verdict that fails now where it passed (or was unsupported) then is a regression; so
is a median time that grew by more than the noise measured in both runs (three times
the larger interquartile range) and by more than 5 %. Only evaluations of the same
kernel (semantic hash), backend, adapter, size and seed are compared."""

from __future__ import annotations

import json
from collections.abc import Mapping

from forge.errors import ResultsFileError
from oracle import Verdict

__all__ = ["compare_with_baseline", "load_results", "RESULTS_FORMAT"]

#: The ``format`` field of ``kforge check --json`` results (``kforge report`` and
#: ``--baseline`` refuse other formats).
RESULTS_FORMAT = "kforge-check/1"

_NOISE_FACTOR = 3.0
_MIN_SLOWDOWN = 0.05


def load_results(path: str, accepted: Mapping[str, str] | None = None) -> dict:
    """A saved ``kforge check --json`` run (or, with ``accepted``, a file of any format it
    maps to the command that writes it); a ``ResultsFileError`` naming the file for
    anything else."""
    accepted = accepted or {RESULTS_FORMAT: "kforge check --json"}
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise ResultsFileError(f"cannot read the results file {path}: {exc}") from None
    except ValueError as exc:
        raise ResultsFileError(f"{path} is not valid JSON (truncated?): {exc}") from None
    if not isinstance(data, dict) or data.get("format") not in accepted:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        wanted = "; ".join(f"{f} (write one with {how})" for f, how in accepted.items())
        raise ResultsFileError(
            f"{path} is not a result of format {wanted}: it says {found!r} "
            "(another kind of file, or another version of kernel-forge)"
        )
    return data


def _keyed(data: dict) -> dict[tuple, dict]:
    found = {}
    for result in data.get("results", []):
        for backend, ev in result.get("evaluations", {}).items():
            adapter = (ev.get("adapter") or {}).get("name", "")
            found[(ev.get("semantic_hash"), backend, adapter, ev.get("size"), ev.get("seed"))] = ev
    return found


def _iqr(samples: list) -> float:
    import numpy as np

    return float(np.subtract(*np.percentile(samples, [75, 25]))) if samples else 0.0


def compare_with_baseline(path: str, current: dict) -> list[str]:
    """One line per regression of ``current`` against the run saved at ``path``."""
    before, now = _keyed(load_results(path)), _keyed(current)
    lines = []
    for key, ev in now.items():
        old = before.get(key)
        if old is None:
            continue
        name = f"{ev['kernel']} on {key[1]} at size {key[3]}, seed {key[4]}"
        if Verdict(ev["verdict"]).failing and not Verdict(old["verdict"]).failing:
            lines.append(f"{name}: {old['verdict']} before, {ev['verdict']} now")
            continue
        if (
            ev.get("timing")
            and old.get("timing")
            and ev["timing"]["source"] == old["timing"]["source"]
        ):
            was, is_ = old["timing"]["median_ns"], ev["timing"]["median_ns"]
            noise = _NOISE_FACTOR * max(
                _iqr(old["timing"]["samples_ns"]), _iqr(ev["timing"]["samples_ns"])
            )
            if is_ - was > noise and is_ > was * (1 + _MIN_SLOWDOWN):
                lines.append(
                    f"{name}: median {was:.0f} ns before, {is_:.0f} ns now (noise {noise:.0f} ns)"
                )
    return lines
