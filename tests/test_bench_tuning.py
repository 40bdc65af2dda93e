"""bench P13's plumbing (the figures themselves are measured on the GPU machine): a
strategy's search is scored on the exhaustive run's own medians, and the exhaustive
table is written in Kernel Tuner's cache format, one entry per candidate measured,
keyed by the parameters that vary."""

from __future__ import annotations

import json

import pytest

import oracle
from bench._tuning import _reached, kernel_tuner_cache
from forge import Schedule
from tests.test_oracle_tune import PARAMS, _landscape, _Synthetic


@pytest.fixture(autouse=True)
def _cache_root(tmp_path, monkeypatch):
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))


def test_a_search_is_scored_on_the_exhaustive_medians(tmp_path):
    cache = tmp_path / "table.jsonl"
    full = oracle.tune(_Synthetic(), PARAMS, strategy="exhaustive", samples=2, cache=cache)
    table = {c.key: _landscape(c.schedule, c.values) for c in full.history()}
    best = min(table.values())
    search = oracle.tune(
        _Synthetic(), PARAMS, strategy="random", budget=10, samples=2, cache=cache, search_seed=3
    )
    ratio, first = _reached(search, table, best)
    found = min(table[c.key] for c in search.history())
    assert ratio == pytest.approx(found / best)
    assert (first is None) == (ratio > 1.05)


def test_the_exhaustive_table_is_a_kernel_tuner_cache(tmp_path):
    cache = tmp_path / "table.jsonl"
    full = oracle.tune(_Synthetic(), PARAMS, strategy="exhaustive", samples=2, cache=cache)
    data = json.loads(kernel_tuner_cache(full, cache).read_text())
    assert data["tune_params_keys"] == ["wg", "UNROLL", "SPLIT"]
    assert data["tune_params"]["UNROLL"] == [1, 2, 4, 8]
    assert len(data["cache"]) == 45
    entry = data["cache"]["(128, 1, 1),4,2"]
    assert entry["time"] == pytest.approx(
        _landscape(Schedule(128), {"UNROLL": 4, "SPLIT": 2}) / 1e6, rel=0.01
    )  # milliseconds
    assert {"UNROLL", "SPLIT", "wg", "times", "compile_time"} <= set(entry)
