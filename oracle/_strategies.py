"""Search strategies of the tuner: which candidates to measure, in what order, within
the budget (``oracle._tune`` does the measuring, judging and caching).

- ``exhaustive``: every candidate, in the space's order.
- ``random``: the candidates in a random order drawn from the search seed.
- ``halving``: successive halving; every candidate is measured (in a random order
  when the budget cannot hold them all), then the faster half is kept and measured
  with twice the samples, until the finalists remain.
- ``tpe``: model-based, the Tree-structured Parzen Estimator of optuna (the ``tune``
  extra). Each candidate is described by its features (the schedule's fields and the
  parameters' values) as categorical choices; the sampler proposes features, and a
  proposal that is no candidate left to measure (pruned, or measured already) is
  replaced by the nearest one that is (fewest features differing), which the model
  learns instead.

Every strategy proposes its candidates in an order that depends only on the search
seed and on the measurements, so a re-run finds each of them in the tuning cache and
follows the same path.
"""

from __future__ import annotations

import abc
import math
import random
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from forge.errors import InvalidArgument, MissingExtra
from forge.tunables import SCHEDULE_KEYS

if TYPE_CHECKING:  # oracle._tune runs the strategies; they never import it
    from ._tune import Candidate, _Search

#: Candidates measured again together at the end of a search (the best ones by median).
FINALISTS = 3


def _score(c: Candidate, objective: str) -> float:
    """What a strategy ranks by: joules per run, or the median time."""
    return c.energy if objective == "energy" else c.median


__all__ = ["Strategy", "STRATEGIES", "get_strategy"]


class Strategy(abc.ABC):
    """How a search picks what to measure."""

    name: str = ""
    description: str = ""

    def check(self) -> None:  # noqa: B027 - optional: most strategies need no extra
        """Raise ``MissingExtra`` when the strategy cannot run here."""

    @abc.abstractmethod
    def search(
        self, search: _Search, alive: list[Candidate], samples: int, seed: int
    ) -> list[Candidate]:
        """Measure within ``search``'s budget; return the candidates that ran
        correctly, comparable by their score."""


class Exhaustive(Strategy):
    name = "exhaustive"
    description = "every candidate, in order"

    def order(self, alive: list[Candidate], seed: int) -> list[Candidate]:
        return list(alive)

    def search(self, search, alive, samples, seed):
        return search.measure(self.order(alive, seed), samples)


class RandomSearch(Exhaustive):
    name = "random"
    description = "candidates in a random order (the search seed's)"

    def order(self, alive, seed):
        order = list(alive)
        random.Random(seed).shuffle(order)
        return order


class Halving(Strategy):
    name = "halving"
    description = "measure all, keep the faster half with twice the samples, until few remain"

    def search(self, search, alive, samples, seed):
        order = list(alive)
        if search.budget.count is not None and search.budget.count < len(order):
            random.Random(seed).shuffle(order)
        kept = search.measure(order, samples, 0)
        round_ = 0
        while len(kept) > FINALISTS and not search.exhausted_time():
            kept.sort(key=lambda c: _score(c, search.settings.objective))
            half = math.ceil(len(kept) / 2)
            for c in kept[half:]:
                c.status, c.reason = "eliminated", f"slower half in round {round_}"
            round_, samples = round_ + 1, samples * 2
            kept = search.measure(kept[:half], samples, round_)
        return kept


def features(c: Candidate) -> dict[str, Any]:
    """What a model sees of a candidate: the schedule's fields and the parameters'
    values, each as a categorical choice (tuples as text)."""
    found = {key: getattr(c.schedule, field) for key, field in SCHEDULE_KEYS.items()}
    found.update(c.values)
    return {k: v if isinstance(v, (bool, int, float, str)) else str(v) for k, v in found.items()}


def _nearest(wanted: dict, choices: Sequence[Candidate], described: dict) -> Candidate:
    """The candidate of ``choices`` whose features differ from ``wanted`` in the fewest
    places (the first such, in the space's order)."""
    return min(choices, key=lambda c: sum(described[id(c)].get(k) != v for k, v in wanted.items()))


class TPE(Strategy):
    name = "tpe"
    description = "model-based: optuna's Tree-structured Parzen Estimator (the tune extra)"

    def check(self) -> None:
        _optuna()

    def search(self, search, alive, samples, seed):
        optuna = _optuna()
        described = {id(c): features(c) for c in alive}
        distributions = _distributions(optuna, [described[id(c)] for c in alive])
        planned = min(len(alive), search.budget.count or len(alive))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            sampler = optuna.samplers.TPESampler(
                seed=seed,
                n_startup_trials=max(2, min(10, planned // 5)),
                multivariate=True,
                constant_liar=True,
            )
            study = optuna.create_study(direction="minimize", sampler=sampler)
            left = list(alive)
            while left and not search.exhausted():
                batch = self._ask(optuna, study, distributions, left, described, search.concurrency)
                search.measure([c for _, c in batch], samples)
                for trial, c in batch:
                    self._tell(optuna, study, trial, c, search.settings.objective)
                    left.remove(c)
                if any(not c.order for _, c in batch):
                    break  # the budget ran out inside the batch
        return [c for c in alive if c.status == "measured"]

    @staticmethod
    def _ask(optuna, study, distributions, left, described, size):
        """Up to ``size`` proposals, each a candidate still to be measured."""
        batch: list = []
        for _ in range(min(size, len(left))):
            trial = study.ask(distributions)
            free = [c for c in left if all(c is not other for _, other in batch)]
            match = [
                c for c in free if {k: described[id(c)][k] for k in distributions} == trial.params
            ]
            if match:
                batch.append((trial, match[0]))
                continue
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            nearest = _nearest(trial.params, free, {id(c): described[id(c)] for c in free})
            study.enqueue_trial({k: described[id(nearest)][k] for k in distributions})
            batch.append((study.ask(distributions), nearest))
        return batch

    @staticmethod
    def _tell(optuna, study, trial, c: Candidate, objective: str) -> None:
        if c.status == "measured" and math.isfinite(_score(c, objective)):
            study.tell(trial, math.log(max(_score(c, objective), 1e-30)))
        else:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)


def _distributions(optuna, described: list[dict]) -> dict:
    """A categorical distribution per feature that varies among the candidates."""
    choices: dict[str, list] = {}
    for features_ in described:
        for key, value in features_.items():
            values = choices.setdefault(key, [])
            if value not in values:
                values.append(value)
    return {
        key: optuna.distributions.CategoricalDistribution(values)
        for key, values in choices.items()
        if len(values) > 1
    }


def _optuna():
    try:
        import optuna
    except ImportError:
        raise MissingExtra(
            "--strategy tpe uses optuna, which is not installed: pip install "
            "'kernel-forge[tune]' (or pip install optuna)"
        ) from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


STRATEGIES: dict[str, Strategy] = {
    s.name: s for s in (Exhaustive(), RandomSearch(), Halving(), TPE())
}


def get_strategy(name: str) -> Strategy:
    """The strategy called ``name``, checked to be able to run here."""
    strategy = STRATEGIES.get(name)
    if strategy is None:
        raise InvalidArgument(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}")
    strategy.check()
    return strategy
