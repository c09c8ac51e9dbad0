"""DelayedLabels gives simulate_qa's order, whatever the times, ties, lost labels and batches."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from river import stream as river_stream

from imbalance_stream.evaluate.delayed import DelayedLabels


def rivers_order(times, answer_times):
    """``simulate_qa``'s steps, as the replay calls it: ``(is answer, index)``."""
    data = ((i, None) for i in range(len(times)))
    steps = river_stream.simulate_qa(
        ((i, i) for i, _ in data),
        moment=lambda i: times[i],
        delay=lambda i, _: answer_times[i] - times[i],
        copy=False,
    )
    return [(y is not None, i) for _, i, y in steps]


def batched_order(times, answer_times, cuts, resume_at=None):
    """The same through DelayedLabels, fed in batches cut at ``cuts``; with ``resume_at``, the
    queue at that question is rebuilt as a resumed run does (its answers sorted by answer time
    and question)."""
    labels = DelayedLabels()
    steps: list = []
    bounds = [0, *sorted(set(cuts)), len(times)]
    for start, stop in itertools.pairwise(bounds):
        if start == stop:
            continue
        items = list(range(start, stop))
        steps.extend(labels.feed(items, times[start:stop], answer_times[start:stop]))
    steps.extend((True, item) for item in labels.drain())
    return steps


@st.composite
def streams(draw):
    n = draw(st.integers(0, 60))
    gaps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))  # 0: ties
    times = list(itertools.accumulate(gaps))
    delays = draw(
        st.lists(
            st.one_of(st.just(0), st.integers(0, 5), st.integers(0, 200)), min_size=n, max_size=n
        )
    )
    answer_times = [t + d for t, d in zip(times, delays)]
    cuts = draw(st.lists(st.integers(0, n), max_size=6))
    return times, answer_times, cuts


@settings(max_examples=400, deadline=None)
@given(streams())
def test_the_order_is_rivers_for_any_batches(stream):
    times, answer_times, cuts = stream
    assert batched_order(times, answer_times, cuts) == rivers_order(times, answer_times)


@settings(max_examples=200, deadline=None)
@given(streams(), st.data())
def test_a_queue_rebuilt_from_pending_answers_goes_on_as_before(stream, data):
    """A resumed replay rebuilds the queue from the answers pending after some question."""
    times, answer_times, _ = stream
    n = len(times)
    whole = rivers_order(times, answer_times)
    k = data.draw(st.integers(0, n))  # questions asked before the stop
    asked = [i for kind, i in whole if not kind][:k]
    done = whole[: whole.index((False, asked[-1])) + 1] if asked else []
    answered = {i for kind, i in done if kind}
    pending = [i for i in asked if i not in answered]
    queued = sorted(pending, key=lambda i: (answer_times[i], i))
    labels = DelayedLabels((answer_times[i], i) for i in queued)
    rest = list(range(k, n))
    steps = labels.feed(rest, [times[i] for i in rest], [answer_times[i] for i in rest])
    steps += [(True, i) for i in labels.drain()]
    assert done + steps == whole


def test_a_label_due_at_its_own_time_waits_for_the_next_question():
    labels = DelayedLabels()
    assert labels.feed([0, 1], [5, 5], [5, 5]) == [(False, 0), (True, 0), (False, 1)]
    assert len(labels) == 1
    assert labels.feed([2], [6], [9]) == [(True, 1), (False, 2)]
    assert labels.drain() == [2] and len(labels) == 0


def test_the_replay_and_a_delayed_prequential_run_agree():
    """One executor for both: a log whose times are the sample numbers and whose labels come
    ``k`` rows late replays a model that watches the arrivals (``observe_one``) exactly as a
    prequential run with ``delay = k`` runs it."""
    import tempfile

    from river import datasets, linear_model, metrics

    from imbalance_stream.density_ratio import ImportanceWeighted, ULSIFReweighter
    from imbalance_stream.evaluate import run_prequential
    from imbalance_stream.replay import parse, replay

    rows = list(itertools.islice(datasets.Phishing(), 600))
    names = list(rows[0][0])

    def model():
        reweighter = ULSIFReweighter(n_source=60, n_target=30, refresh_every=20, seed=1)
        return ImportanceWeighted(linear_model.LogisticRegression(), reweighter)

    ran = run_prequential(
        rows, {"IW": model()}, {"BA": metrics.BalancedAccuracy()}, step=100, delay=25
    )
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/log.csv"
        with open(path, "w") as handle:
            handle.write(",".join(["t", *names, "y"]) + "\n")
            for i, (x, y) in enumerate(rows):
                handle.write(",".join([str(i), *(repr(x[n]) for n in names), str(y)]) + "\n")
        scenario = parse(
            f'kind = "replay"\n[log]\npath = "{path}"\ntime = "t"\nlabel = "y"\n'
            "labels = [false, true]\nlabel_delay = 25\n[models]\n"
            'IW = { class = "ImportanceWeighted", params = { classifier = { class = '
            '"river.linear_model.LogisticRegression" }, reweighter = { class = '
            '"ULSIFReweighter", params = { n_source = 60, n_target = 30, refresh_every = 20, '
            "seed = 1 } } } }\n"
            '[metrics]\nBA = "river.metrics.BalancedAccuracy"\n'
        )
        replayed = replay(scenario, out_dir=f"{folder}/out")
    assert replayed.table[0]["BA"] == ran.final["IW"]["BA"]
