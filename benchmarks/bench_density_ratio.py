"""Speed of the density-ratio estimators and detectors, as ratios against peers in the same run.

1. Refresh cost: a uLSIF fit with the leave-one-out choice of ``sigma`` and ``lambda`` over the
   same 9 x 9 grid and 100 centres, on ``--n`` source and ``--n`` target points (d = 10, two
   Gaussians), :class:`imbalance_stream.density_ratio.ULSIF` against the ``densratio`` package's
   uLSIF (``pip install densratio``; its grid search is 5-fold cross-validation where ours is the
   closed-form leave-one-out of Kanamori et al.). ``--parts breakdown`` times the steps of our
   fit apart on the same data: the median distance, the Gaussian bases at the 9 widths, and the
   leave-one-out of each width with the eigen-directions it keeps.
2. Per-sample cost against the window size: ``score_one`` then ``learn_one`` over River's Shuttle
   stream (standard-scaled, stream mode, ``n_test = n_reference / 4``, a refresh every
   ``n_test`` samples) for each detector, against River's ``HalfSpaceTrees`` and
   ``LocalOutlierFactor``; the refresh time is reported apart from the per-sample steps.
3. ``--parts kmm-solvers``: a KMM fit (``epsilon = 1e-10``, as the novelty detectors) on ``--n``
   source and target points by the package's first-order solver at its default tolerance (1e-6)
   against the interior-point solver (cvxopt, ``pip install cvxopt``) at a relative gap of 1e-9:
   CPU time, iterations and the objective each reaches, in the same run.

Times are CPU seconds of this process (``time.process_time``). Run from the repository root::

    pip install densratio   # optional, for part 1
    python benchmarks/bench_density_ratio.py [--n 1000] [--windows 200 400 800] [--samples 2000]
    python benchmarks/bench_density_ratio.py --parts breakdown --repeats 7
    python benchmarks/bench_density_ratio.py --parts kmm-solvers --n 2000
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from river import anomaly, datasets, preprocessing

from imbalance_stream.anomaly import (
    KDENovelty,
    KLIEPNovelty,
    KMMNovelty,
    LocKMMNovelty,
    ULSIFNovelty,
)
from imbalance_stream.anomaly.base import DensityRatioNovelty
from imbalance_stream.density_ratio import KMM, ULSIF
from imbalance_stream.density_ratio.bandwidths import LAMBDA_GRID, SIGMA_FACTORS, median_distance
from imbalance_stream.density_ratio.gaussian import (
    gaussian_gram,
    gaussian_of_distances,
    sq_distances,
)
from imbalance_stream.density_ratio.ulsif import kept_eigenpairs, ulsif_loocv


def two_gaussians(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The refresh parts' data: ``n`` source and ``n`` target points in 10 dimensions."""
    rng = np.random.default_rng(0)
    return rng.normal(0.0, 1.0, size=(n, 10)), rng.normal(0.3, 0.8, size=(n, 10))


def refresh_cost(n: int, repeats: int) -> None:
    source, target = two_gaussians(n)
    ours, theirs = [], []
    for _ in range(repeats):
        start = time.process_time()
        ULSIF(sigma_factors=tuple(SIGMA_FACTORS), seed=0).fit(source, target)
        ours.append(time.process_time() - start)
        try:
            from densratio import densratio
        except ImportError:
            continue
        start = time.process_time()
        # densratio is handed the grid ULSIF builds itself, so building it is timed on both sides
        sigmas = median_distance(np.vstack([source, target]), 0) * SIGMA_FACTORS
        with contextlib.redirect_stdout(io.StringIO()):
            densratio(
                target,
                source,
                alpha=0.0,
                sigma_range=list(sigmas),
                lambda_range=list(LAMBDA_GRID),
                kernel_num=100,
                verbose=False,
            )
        theirs.append(time.process_time() - start)
    print(f"\n## uLSIF fit with model selection, n = {n} + {n}, d = 10 (median of {repeats})\n")
    print("| implementation | CPU s | time / ours |\n|---|---:|---:|")
    mine = statistics.median(ours)
    print(f"| imbalance_stream ULSIF (closed-form LOOCV) | {mine:.3f} | 1.00 |")
    if theirs:
        other = statistics.median(theirs)
        print(f"| densratio uLSIF (5-fold CV) | {other:.3f} | {other / mine:.1f} |")
    else:
        print("| densratio | not installed | |")


def median_cpu_ms(step, repeats: int) -> float:
    step()  # compiled and warm
    times = []
    for _ in range(repeats):
        start = time.process_time()
        step()
        times.append(time.process_time() - start)
    return 1e3 * statistics.median(times)


def refresh_breakdown(n: int, repeats: int) -> None:
    """The steps of ``ULSIF``'s fit timed apart (CPU ms, median of ``repeats``)."""
    source, target = two_gaussians(n)
    pooled = np.vstack([source, target])
    median = median_distance(pooled, 0)
    centres = target[: min(100, n)]
    d2_de, d2_nu = sq_distances(centres, source), sq_distances(centres, target)
    print(f"\n## uLSIF fit, step by step, n = {n} + {n} (CPU ms, median of {repeats})\n")
    print("| step | CPU ms | eigen-directions kept |\n|---|---:|---:|")
    cost = median_cpu_ms(lambda: median_distance(pooled, 0), repeats)
    print(f"| median distance | {cost:.2f} | |")
    widths = median * SIGMA_FACTORS

    def bases():
        return [(gaussian_of_distances(d2_de, s), gaussian_of_distances(d2_nu, s)) for s in widths]

    print(f"| Gaussian bases, 9 widths | {median_cpu_ms(bases, repeats):.2f} | |")
    for factor, (phi_de, phi_nu) in zip(SIGMA_FACTORS, bases()):
        kept = len(kept_eigenpairs(phi_de, LAMBDA_GRID)[0])
        cost = median_cpu_ms(lambda de=phi_de, nu=phi_nu: ulsif_loocv(de, nu, LAMBDA_GRID), repeats)
        print(f"| leave-one-out, width {factor:.3g} x median | {cost:.2f} | {kept} |")


def detectors(window: int) -> dict:
    common = {"mode": "stream", "n_reference": window, "n_test": window // 4}
    common["refresh_every"] = common["n_test"]
    return {
        "KMMNovelty": KMMNovelty(**common),
        "LocKMMNovelty": LocKMMNovelty(**common),
        "ULSIFNovelty": ULSIFNovelty(seed=0, **common),
        "KLIEPNovelty": KLIEPNovelty(seed=0, **common),
        "KDENovelty": KDENovelty(seed=0, **common),
        "river HalfSpaceTrees": anomaly.HalfSpaceTrees(seed=0),
        "river LocalOutlierFactor": anomaly.LocalOutlierFactor(n_neighbors=10),
    }


def per_sample_cost(windows: list[int], n_samples: int) -> None:
    scaler = preprocessing.StandardScaler()
    warm_up = detectors(40)  # compile the jitted kernels before any timing
    for x, _ in datasets.Shuttle().take(200):
        for model in warm_up.values():
            model.score_one(x)
            model.learn_one(x)
    stream = []
    for x, _ in datasets.Shuttle().take(n_samples):
        scaler.learn_one(x)
        stream.append(scaler.transform_one(x))
    print(f"\n## Per-sample cost on {n_samples} Shuttle samples (stream mode)\n")
    print("| model | n_reference | score_one + learn_one, us/sample | refreshes, CPU s total |")
    print("|---|---:|---:|---:|")
    for window in windows:
        for name, model in detectors(window).items():
            if name.startswith("river") and window != windows[0]:
                continue  # River's detectors have no window: measured once
            refresh_time = 0.0
            if isinstance(model, DensityRatioNovelty):
                solve = model.refresh

                def timed_refresh(solve=solve):
                    nonlocal refresh_time
                    start = time.process_time()
                    result = solve()
                    refresh_time += time.process_time() - start
                    return result

                model.refresh = timed_refresh  # type: ignore[method-assign]
            start = time.process_time()
            for x in stream:
                model.score_one(x)
                model.learn_one(x)
            total = time.process_time() - start
            per_sample = (total - refresh_time) / len(stream) * 1e6
            shown = "-" if name.startswith("river") else window
            print(f"| {name} | {shown} | {per_sample:.0f} | {refresh_time:.2f} |")


def kmm_solvers(n: int, repeats: int) -> None:
    """KMM's first-order solver at 1e-6 against the interior-point one at 1e-9, same data."""
    source, target = two_gaussians(n)
    print(f"\nKMM fit on {n} source and {n} target points (CPU s, median of {repeats})")
    print("solver          tol     CPU s   iterations   objective")
    seconds = {}
    for solver, tol in (("fista", 1e-6), ("interior-point", 1e-9)):
        kmm = KMM(epsilon=1e-10, tol=tol, max_iter=100_000, seed=0, solver=solver)
        seconds[solver] = median_cpu_ms(functools.partial(kmm.fit, source, target), repeats) / 1e3
        K = gaussian_gram(source, source, kmm.sigma_)
        k = gaussian_gram(source, target, kmm.sigma_).sum(1)  # as many source as target points
        objective = 0.5 * kmm.weights_ @ K @ kmm.weights_ - k @ kmm.weights_
        print(f"{solver:15s} {tol:<7g} {seconds[solver]:7.2f} {kmm.n_iter_:12d}   {objective:.6f}")
    print(f"first-order / interior-point time: {seconds['fista'] / seconds['interior-point']:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--windows", type=int, nargs="+", default=[200, 400, 800])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=("refresh", "breakdown", "per-sample", "kmm-solvers"),
        default=["refresh", "per-sample"],
    )
    args = parser.parse_args()
    if "refresh" in args.parts:
        refresh_cost(args.n, args.repeats)
    if "breakdown" in args.parts:
        refresh_breakdown(args.n, args.repeats)
    if "per-sample" in args.parts:
        per_sample_cost(args.windows, args.samples)
    if "kmm-solvers" in args.parts:
        kmm_solvers(args.n, args.repeats)


if __name__ == "__main__":
    main()
