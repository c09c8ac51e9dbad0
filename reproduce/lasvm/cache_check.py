"""Where LASVM's time against SVC's goes on a9a: LASVM x1 in the offline mode (``learn_epochs``,
one pass in the order of ``table3_2_adult_orders.toml``'s run ``--run``) plus finishing, with each
kernel-cache budget of ``--cache-mb``, and scikit-learn's ``SVC`` with Table 3.1's 40 MB, in one
process. The budget changes kernel evaluations and time, never the model.

    python -m reproduce.lasvm.cache_check --cache-mb 40 96
"""

from __future__ import annotations

import argparse
import time

from imbalance_stream.svm import LASVM
from reproduce.lasvm.protocol import (
    TAU,
    _measures,
    _run_svc,
    _scores,
    _warm_up,
    as_dicts,
    load_split,
)

C, GAMMA, SEED = 100.0, 0.005, 2009  # Table 3.1's Adult settings; table3_2*.toml's seed


def lasvm_offline(split, cache_mb: float) -> dict:
    """One offline pass plus finishing with a ``cache_mb`` budget: CPU seconds and the model's
    test error, cache lines, kernel evaluations and finishing steps."""
    X_train, y_train, X_test, y_test = split[:4]
    train, labels = as_dicts(X_train), y_train.tolist()
    model = LASVM(C=C, gamma=GAMMA, tau=TAU, cache_mb=cache_mb)
    start = time.process_time()
    model.learn_epochs(train, labels, epochs=1, shuffle=False)
    pass_seconds = time.process_time() - start
    steps = model.finish()
    seconds = time.process_time() - start
    error = _measures(_scores(model, as_dicts(X_test)), y_test)["error"]
    return {
        "cache_mb": cache_mb,
        "lines": int(model._lines.shape[0]),
        "pass_seconds": round(pass_seconds, 1),
        "seconds": round(seconds, 1),
        "error": error,
        "kernel_evaluations": model.n_kernel_evaluations_,
        "finishing_steps": steps,
    }


def svc(split, cache_mb: float = 40.0) -> dict:
    """The protocol's ``SVC`` cell (``_run_svc``): CPU seconds and test error."""
    row, scores = _run_svc(split, C, GAMMA, cache_mb)
    return {"seconds": round(row["cpu_seconds"], 1), "error": _measures(scores, split[3])["error"]}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-mb", type=float, nargs="+", default=[40.0, 96.0])
    parser.add_argument("--run", type=int, default=0)
    parser.add_argument("--rows", type=int, default=None, help="the first rows only")
    args = parser.parse_args(argv)
    _warm_up()
    split = load_split("adult", SEED, args.run, args.rows)
    reference = svc(split)
    print(
        f"SVC, 40 MB: {reference['seconds']} CPU s, test error {reference['error']}% "
        f"({len(split[1])} training rows, order {args.run})"
    )
    for budget in args.cache_mb:
        row = lasvm_offline(split, budget)
        print(
            f"LASVM x1 offline, {budget:g} MB ({row['lines']} cache lines): pass "
            f"{row['pass_seconds']} s, total {row['seconds']} CPU s "
            f"({row['seconds'] / max(reference['seconds'], 1e-9):.2f} of SVC's), test error "
            f"{row['error']}%, {row['kernel_evaluations']:,} kernel evaluations, "
            f"{row['finishing_steps']} finishing steps"
        )


if __name__ == "__main__":
    main()
