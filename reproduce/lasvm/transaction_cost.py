"""What the per-sample transaction costs LASVM's one pass: the same pass of ``learn_one`` over one
run of a Table 3.2 set, once as users run it (each sample applied through
``Transactional._apply``: a copy of what the step can write before the update, the members'
slots and the scalars, and a finiteness scan after) and once with the update applied directly, in
the same process.
Both passes must end in the same model; only the time differs. ``--method`` measures a chapter 6
model instead of LASVM (Table 6.2's settings, the 40 MB cache of ``table6_3_reduced.toml`` unless
``--cache-mb``).

    python -m reproduce.lasvm.transaction_cost --dataset banana
    python -m reproduce.lasvm.transaction_cost --dataset adult --rows 8000
    python -m reproduce.lasvm.transaction_cost --dataset adult --rows 4000 --method LASVM-NC
    python -m reproduce.lasvm.transaction_cost --dataset mnist-8 --rows 2000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from imbalance_stream.svm import LASVM
from reproduce.lasvm.protocol import (
    _FAMILY,
    CH3_SETTINGS,
    CH6_SETTINGS,
    TAU,
    _warm_up,
    as_dicts,
    load_split,
)

#: The cache of ``table6_3_reduced.toml``, the run whose times the chapter 6 option explains.
FAMILY_CACHE_MB = 40.0


def _snapshot_megabytes(model: LASVM) -> float:
    """Megabytes the transaction's snapshot copies before the next sample (the store's segment
    for that sample's values aside: a few bytes per non-zero)."""
    _, copies, _, _ = model._snapshot(np.zeros(0, dtype=np.int64))
    total = 0
    for value in copies.values():
        items = value if isinstance(value, (tuple, list)) else (value,)
        total += sum(item.nbytes for item in items if isinstance(item, np.ndarray))
    return total / 1e6


def build(dataset: str, method: str, cache_mb: float | None):
    """LASVM with Table 3.1's settings, or a chapter 6 model with Table 6.2's."""
    if method == "LASVM":
        C, gamma, default_mb = CH3_SETTINGS[dataset.split("-")[0]]
        return LASVM(C=C, gamma=gamma, tau=TAU, cache_mb=cache_mb or default_mb, seed=0)
    if dataset not in CH6_SETTINGS:
        raise ValueError(f"{method} has no Table 6.2 settings for {dataset!r}")
    C, gamma = CH6_SETTINGS[dataset]
    return _FAMILY[method](C=C, gamma=gamma, tau=TAU, cache_mb=cache_mb or FAMILY_CACHE_MB)


def one_pass(
    split, dataset: str, guarded: bool, method: str = "LASVM", cache_mb: float | None = None
) -> tuple[LASVM, float]:
    """One pass of ``learn_one`` (no finishing); its CPU seconds."""
    X_train, y_train = split[:2]
    train, labels = as_dicts(X_train), y_train.tolist()
    model = build(dataset, method, cache_mb)
    if not guarded:
        # the update alone, without the snapshot before it and the scan after it
        model._apply = lambda indices, update, *args: update(*args)  # type: ignore[method-assign]
    start = time.process_time()
    for x, label in zip(train, labels):
        model.learn_one(x, label)
    return model, time.process_time() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    digits = tuple(f"mnist-{digit}" for digit in range(10))
    parser.add_argument(
        "--dataset", default="banana", choices=("waveform", "banana", "adult", *digits)
    )
    parser.add_argument("--rows", type=int, default=None, help="training rows (Adult, MNIST)")
    parser.add_argument("--seed", type=int, default=2009)
    parser.add_argument("--method", default="LASVM", choices=("LASVM", *_FAMILY))
    parser.add_argument("--cache-mb", type=float, default=None, help="kernel cache budget")
    args = parser.parse_args(argv)
    _warm_up()
    split = load_split(args.dataset, args.seed, 0, args.rows)
    test = as_dicts(split[2][:1000])
    options = {"method": args.method, "cache_mb": args.cache_mb}
    guarded, guarded_cpu = one_pass(split, args.dataset, guarded=True, **options)
    direct, direct_cpu = one_pass(split, args.dataset, guarded=False, **options)
    difference = max(abs(guarded.decision_one(x) - direct.decision_one(x)) for x in test)
    print(
        f"{args.method} on {args.dataset}, {len(split[1])} training rows, "
        "one pass of learn_one, no finishing"
    )
    print(f"  with the transaction:    {guarded_cpu:8.2f} CPU s, {guarded.n_support_} SVs")
    print(f"  update applied directly: {direct_cpu:8.2f} CPU s, {direct.n_support_} SVs")
    print(
        f"  ratio {guarded_cpu / direct_cpu:.1f}; arrays copied per sample at the end: "
        f"{_snapshot_megabytes(guarded):.2f} MB"
    )
    print(f"  largest difference of the two models' decisions on 1,000 test rows: {difference:.3g}")


if __name__ == "__main__":
    main()
