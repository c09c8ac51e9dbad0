"""When VIRTUAL's virtual positives are support vectors (issue 37: Table 5.2's share, 74.4% on
Letter-A in the thesis, a few percent in ``table5_3.toml``).

Runs VIRTUAL exactly as a ``table5_3.toml`` cell does (the same split, training order, seed and
settings; with or without the saturation stop) and counts, for each run, the virtual positives

* made (Algorithm 5.1, line 21) and learned (selected from the pool) before the end;
* with a nonzero coefficient right after the PROCESS and REPROCESS of their own step;
* support vectors of the model the pass or the stop left (the table's ``unfinished`` count);
* support vectors after finishing (the table's count);

and, for breast, how many virtual positives against the real ones (SMOTE makes one per real
positive).

    python -m reproduce.lasvm.virtual_share --dataset letter-a --runs 3
    python -m reproduce.lasvm.virtual_share --dataset breast --runs 4 --no-stop
"""

from __future__ import annotations

import argparse

import numpy as np

from imbalance_stream.active import Virtual
from imbalance_stream.svm import LASVM
from reproduce.lasvm.active_protocol import (
    SETTINGS,
    TAU,
    _stop,
    _warm_up,
    as_dicts,
    load_split,
)


class CountingVirtual(Virtual):
    """VIRTUAL that records, for every virtual positive it learns, whether its coefficient is
    nonzero right after its own step (before any later step can evict it)."""

    def _start_run(self, model, X) -> None:
        super()._start_run(model, X)
        self.learned_virtual = 0
        self.sv_at_own_step = 0

    def _after_learning(self, model, index, X, y, remaining, rng, result) -> None:
        if index >= self._n_real:
            self.learned_virtual += 1
            self.sv_at_own_step += model.last_alpha_ != 0.0
        super()._after_learning(model, index, X, y, remaining, rng, result)


def _support_count(model, virtual: list[dict]) -> int:
    """How many of the distinct ``virtual`` examples are support vectors of ``model`` now (the
    count behind ``_virtual_share``, Table 5.2's #SV_V(+))."""
    made = {tuple(sorted(x.items())) for x in virtual}
    pairs = model.support_vectors_
    return sum(1 for x, alpha in pairs if alpha > 0 and tuple(sorted(x.items())) in made)


def count(dataset: str, run: int, stop: bool = True, seed: int = 2009) -> dict:
    """The counts of the module's docstring for one run, seeded as ``table5_3.toml``'s cell."""
    C, gamma = SETTINGS[dataset]
    X_train, y_train = load_split(dataset, seed, run)[:2]
    train, labels = as_dicts(X_train), y_train.tolist()
    run_seed = int(np.random.default_rng([seed, run, 1]).integers(2**31))
    model = LASVM(C=C, gamma=gamma, tau=TAU)
    selector = CountingVirtual(pool=59, k=5, v=1, seed=run_seed)
    result = selector.run(model, train, labels, stop=_stop({"stop": stop}))
    made = len(result.virtual)
    at_end = _support_count(model, result.virtual)
    model.finish()
    finished = _support_count(model, result.virtual)
    return {
        "run": run,
        "real_positives": int(y_train.sum()),
        "made": made,
        "learned": selector.learned_virtual,
        "sv_at_own_step": selector.sv_at_own_step,
        "sv_at_end": at_end,
        "sv_finished": finished,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="letter-a", choices=sorted(SETTINGS))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-stop", action="store_true", help="learn until the pool is empty")
    args = parser.parse_args(argv)
    _warm_up()
    end = "the pool's end" if args.no_stop else "the stop"
    for run in range(args.runs):
        c = count(args.dataset, run, stop=not args.no_stop)
        learned = max(c["learned"], 1)
        print(
            f"{args.dataset} run {run}: {c['made']} virtual positives made for"
            f" {c['real_positives']} real ones, {c['learned']} learned;"
            f" SVs right after their own step {c['sv_at_own_step']}"
            f" ({100 * c['sv_at_own_step'] / learned:.0f}% of learned),"
            f" at {end} {c['sv_at_end']}, finished {c['sv_finished']}"
            f" ({100 * c['sv_at_end'] / max(c['made'], 1):.1f}% and"
            f" {100 * c['sv_finished'] / max(c['made'], 1):.1f}% of made)"
        )


if __name__ == "__main__":
    main()
