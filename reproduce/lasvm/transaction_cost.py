"""What the per-sample transaction costs LASVM's one pass: the same pass of ``learn_one`` over one
run of a Table 3.2 set, once as users run it (each sample applied through
``Transactional._apply``: a copy of the state but the kernel-row cache before the update and a
finiteness scan of it after) and once with the update applied directly, in the same process.
Both passes must end in the same model; only the time differs.

    python -m reproduce.lasvm.transaction_cost --dataset banana
    python -m reproduce.lasvm.transaction_cost --dataset adult --rows 8000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from imbalance_stream.svm import LASVM
from reproduce.lasvm.protocol import CH3_SETTINGS, TAU, _warm_up, as_dicts, load_split


def _state_megabytes(model: LASVM) -> float:
    """Megabytes of the arrays the snapshot copies (the feature space and the kernel-row cache,
    derived state, aside)."""
    total = 0
    for key, value in vars(model).items():
        if key == "_features" or key in model._DERIVED:
            continue
        items = value if isinstance(value, (tuple, list)) else (value,)
        total += sum(item.nbytes for item in items if isinstance(item, np.ndarray))
    return total / 1e6


def one_pass(split, dataset: str, guarded: bool) -> tuple[LASVM, float]:
    """LASVM one pass (no finishing) with Table 3.1's settings; its CPU seconds."""
    C, gamma, cache_mb = CH3_SETTINGS[dataset]
    X_train, y_train = split[:2]
    train, labels = as_dicts(X_train), y_train.tolist()
    model = LASVM(C=C, gamma=gamma, tau=TAU, cache_mb=cache_mb, seed=0)
    if not guarded:
        # the update alone, without the snapshot before it and the scan after it
        model._apply = lambda indices, update: update()  # type: ignore[method-assign]
    start = time.process_time()
    for x, label in zip(train, labels):
        model.learn_one(x, label)
    return model, time.process_time() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="banana", choices=("waveform", "banana", "adult"))
    parser.add_argument("--rows", type=int, default=None, help="training rows (Adult)")
    parser.add_argument("--seed", type=int, default=2009)
    args = parser.parse_args(argv)
    _warm_up()
    split = load_split(args.dataset, args.seed, 0, args.rows)
    test = as_dicts(split[2][:1000])
    guarded, guarded_cpu = one_pass(split, args.dataset, guarded=True)
    direct, direct_cpu = one_pass(split, args.dataset, guarded=False)
    difference = max(abs(guarded.decision_one(x) - direct.decision_one(x)) for x in test)
    print(f"{args.dataset}, {len(split[1])} training rows, one pass of learn_one, no finishing")
    print(f"  with the transaction:    {guarded_cpu:8.2f} CPU s, {guarded.n_support_} SVs")
    print(f"  update applied directly: {direct_cpu:8.2f} CPU s, {direct.n_support_} SVs")
    print(
        f"  ratio {guarded_cpu / direct_cpu:.1f}; arrays copied per sample at the end: "
        f"{_state_megabytes(guarded):.1f} MB"
    )
    print(f"  largest difference of the two models' decisions on 1,000 test rows: {difference:.3g}")


if __name__ == "__main__":
    main()
