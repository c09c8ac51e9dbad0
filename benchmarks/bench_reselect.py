"""Cost of the windowed density-ratio components' hyper-parameter selection (issue 35, item 2).

Two loops, each run with the default ``reselect_every`` (the selection at the first refresh and
every 20th), with ``reselect_every=1`` (the thesis's selection at every refresh) and with the
hyper-parameters fixed at the values the first selection chose (no selection at all), in the
same process, warm (numba compiled by a first pass), CPU seconds (``time.process_time``),
the median of ``--repeats`` runs:

1. ``ULSIFNovelty(mode="stream", n_reference=300, n_test=100, refresh_every=50, seed=0)``,
   ``score_one`` then ``learn_one`` over the first 749 rows of River's Phishing (the issue's
   loop);
2. ``ImportanceWeighted(StandardScaler() | LogisticRegression(), KMMReweighter(n_source=500,
   n_target=200, refresh_every=100))`` over 3,000 rows of River's SEA generator (seed 0) whose
   labels come 200 rows late (``stream.simulate_qa``), against the plain pipeline.

Run from the repository root::

    python benchmarks/bench_reselect.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from river import datasets, linear_model, preprocessing, stream
from river.datasets import synth

from imbalance_stream.anomaly import ULSIFNovelty
from imbalance_stream.density_ratio import ImportanceWeighted, KMMReweighter


def ulsif_loop(rows, **params) -> tuple[float, ULSIFNovelty]:
    detector = ULSIFNovelty(
        mode="stream", n_reference=300, n_test=100, refresh_every=50, seed=0, **params
    )
    start = time.process_time()
    for x, _ in rows:
        detector.score_one(x)
        detector.learn_one(x)
    return time.process_time() - start, detector


def pipeline():
    return preprocessing.StandardScaler() | linear_model.LogisticRegression()


def kmm_loop(rows, reweighter: KMMReweighter | None) -> tuple[float, object]:
    model = pipeline() if reweighter is None else ImportanceWeighted(pipeline(), reweighter)
    start = time.process_time()
    for _, x, y in stream.simulate_qa(rows, moment=None, delay=200):
        if y is None:
            model.predict_one(x)
            if reweighter is not None:
                model.observe_one(x)
        else:
            model.learn_one(x, y)
    return time.process_time() - start, model


def kmm_reweighter(**params) -> KMMReweighter:
    return KMMReweighter(n_source=500, n_target=200, refresh_every=100, **params)


def median_time(run, repeats: int) -> float:
    return statistics.median(run()[0] for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--quick", action="store_true", help="a fifth of the rows (a smoke run, not the table)"
    )
    args = parser.parse_args()
    phishing = list(datasets.Phishing().take(749))
    sea = list(synth.SEA(seed=0).take(3000))

    _, first = ulsif_loop(phishing[:300], reselect_every=None)  # compiles; the first selection
    fixed = {"sigma": first.estimator_.sigma_, "ridge": first.estimator_.ridge_}
    kmm_loop(sea[:600], kmm_reweighter())  # compiles the solver's both forms
    _, first_kmm = kmm_loop(sea[:600], kmm_reweighter(reselect_every=None))
    if args.quick:  # past the first refreshes, a fifth of the work
        phishing, sea = phishing[:300], sea[:600]
    kmm_sigma = first_kmm.reweighter.estimator_.sigma_
    print(f"uLSIF fixed at sigma={fixed['sigma']:.4g}, ridge={fixed['ridge']:.4g}")
    print(f"KMM fixed at sigma={kmm_sigma:.4g} (the first refresh's median distance)\n")

    ulsif = {
        "default (reselect_every=20)": lambda: ulsif_loop(phishing),
        "reselect_every=1 (the thesis)": lambda: ulsif_loop(phishing, reselect_every=1),
        "sigma, ridge fixed": lambda: ulsif_loop(phishing, **fixed),
    }
    kmm = {
        "default (reselect_every=20)": lambda: kmm_loop(sea, kmm_reweighter()),
        "reselect_every=1 (the thesis)": lambda: kmm_loop(sea, kmm_reweighter(reselect_every=1)),
        "sigma fixed": lambda: kmm_loop(sea, kmm_reweighter(sigma=kmm_sigma)),
        "plain pipeline": lambda: kmm_loop(sea, None),
    }
    for title, runs, peer in (
        ("ULSIFNovelty, Phishing", ulsif, "sigma, ridge fixed"),
        ("ImportanceWeighted(KMMReweighter), SEA", kmm, "sigma fixed"),
    ):
        times = {name: median_time(run, args.repeats) for name, run in runs.items()}
        print(f"{title}: CPU s (median of {args.repeats}), x {peer}")
        for name, seconds in times.items():
            print(f"  {name:32s} {seconds:7.2f}  {seconds / times[peer]:6.2f}x")
        print()


if __name__ == "__main__":
    main()
