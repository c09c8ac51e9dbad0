"""The feature space: one way from a dict to arrays, validation before any change."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from imbalance_stream.base import FeatureSpace, InvalidFeature, as_float, grow_matrix, grow_vector
from imbalance_stream.base import features as features_module
from imbalance_stream.base.features import MAX_ABS_VALUE, FeatureSpaceFull


def test_new_names_get_columns_in_order_of_appearance_only_after_commit():
    space = FeatureSpace()
    idx, val, new = space.encode({"b": 2.0, "a": 1}, grow=True)
    assert new == ["b", "a"] and idx.tolist() == [0, 1] and val.tolist() == [2.0, 1.0]
    assert len(space) == 0  # nothing changes before commit
    assert space.commit(new) == 2
    idx, val, new = space.encode({"a": 5.0, "c": 1.0}, grow=True)
    assert idx.tolist() == [1, 2] and new == ["c"]


def test_unknown_names_are_ignored_when_not_growing_and_zeros_are_dropped():
    space = FeatureSpace()
    space.commit(["a"])
    idx, val, new = space.encode({"a": 0.0, "zzz": 3.0}, grow=False)
    assert idx.size == 0 and val.size == 0 and new == []


def test_intercept_is_column_zero_and_always_present():
    space = FeatureSpace(intercept=True)
    idx, val, new = space.encode({}, grow=True)
    assert idx.tolist() == [0] and val.tolist() == [1.0]
    space.commit(space.encode({"x": 2.0}, grow=True)[2])
    assert space.to_dict(np.array([9.0, 3.0])) == {"x": 3.0}


@pytest.mark.parametrize(
    "value, message",
    [
        (float("nan"), "non-finite"),
        (float("inf"), "non-finite"),
        (-np.inf, "non-finite"),
        ("3.0", "type str"),
        (None, "type NoneType"),
        ([1.0], "type list"),
        (1 + 2j, "type complex"),
    ],
)
def test_invalid_values_name_the_feature(value, message):
    space = FeatureSpace()
    with pytest.raises(InvalidFeature, match=f"'bad'.*{message}|{message}.*'bad'|'bad'"):
        space.encode({"ok": 1.0, "bad": value}, grow=True)
    assert len(space) == 0


@pytest.mark.parametrize("value", [True, np.float32(2.5), np.int64(3), np.bool_(True), 7])
def test_numeric_scalars_are_accepted(value):
    assert as_float("f", value) == float(value)


def test_non_dict_input_is_refused():
    with pytest.raises(TypeError, match="dict"):
        FeatureSpace().encode([1.0, 2.0], grow=True)


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=3),
        st.floats(-MAX_ABS_VALUE, MAX_ABS_VALUE),
        max_size=8,
    )
)
def test_dense_round_trip(x):
    space = FeatureSpace()
    idx, val, new = space.encode(x, grow=True)
    space.commit(new)
    dense = space.dense(idx, val)
    assert space.to_dict(dense) == {k: v for k, v in x.items() if v != 0.0}


@given(st.integers(0, 50), st.integers(0, 200))
def test_growth_keeps_content_and_pads_with_the_prior(size, needed):
    vector = np.arange(size, dtype=float)
    grown = grow_vector(vector, needed, fill=-1.0)
    assert grown.shape[0] >= max(size, needed)
    assert np.array_equal(grown[:size], vector) and np.all(grown[size:] == -1.0)
    matrix = np.arange(size * size, dtype=float).reshape(size, size)
    grown = grow_matrix(matrix, needed, diagonal=1.0)
    assert np.array_equal(grown[:size, :size], matrix)
    tail = grown[size:, size:]
    assert np.array_equal(tail, np.eye(tail.shape[0]))
    assert not grown[:size, size:].any() and not grown[size:, :size].any()


def test_a_repeated_sample_is_recalled_only_while_it_is_equal_and_the_space_unchanged():
    space = FeatureSpace()
    x = {"a": 1.0, "b": 2.0}
    space.commit(space.encode(x, grow=True)[2])
    first = space.encode(x, grow=False)
    assert space.encode(dict(x), grow=True)[0] is first[0]  # recalled: same arrays
    x["a"] = 5.0  # mutated in place: a miss, re-encoded
    assert space.encode(x, grow=False)[1].tolist() == [5.0, 2.0]
    x["a"] = float("nan")
    with pytest.raises(InvalidFeature, match="'a'"):
        space.encode(x, grow=False)


@pytest.mark.parametrize("tagged", [True, False], ids=["version tag", "copy"])
def test_the_recall_serves_the_same_dict_unchanged_or_for_learning_an_equal_one(
    monkeypatch, tagged
):
    """The recall keeps the sample and its dict version tag where the compiled module reads it,
    else a copy; either way a dict changed since (even back to equal values) is encoded anew,
    and what any call returns is what a fresh encoding gives."""
    if tagged and features_module._dict_version is None:
        pytest.skip("no dict version tag in this build or this Python")
    if not tagged:
        monkeypatch.setattr(features_module, "_dict_version", None)
    space = FeatureSpace()
    x = {"a": 1.0, "b": 2.0}
    space.commit(space.encode(x, grow=True)[2])
    first = space.encode(x, grow=False)
    assert space.encode(x, grow=True)[0] is first[0]  # the same dict, unchanged: recalled
    assert space.encode(x, grow=False)[0] is first[0]
    assert space.encode(dict(x), grow=True)[0] is first[0]  # learning: an equal dict too
    assert space.encode(dict(x), grow=False)[0] is not first[0]  # inference: the same dict only
    x = {"a": 1.0, "b": 2.0}
    space.encode(x, grow=False)
    x["a"] = 3.0
    assert space.encode(x, grow=True)[1].tolist() == [3.0, 2.0]
    space.encode(x, grow=False)
    x["a"] = 1.0
    x["a"] = 3.0  # changed and back: encoded anew, the same values
    assert space.encode(x, grow=True)[1].tolist() == [3.0, 2.0]
    space.encode(x, grow=False)
    x["a"] = 7.0  # the sample then changes: an equal dict to it then, and to it now
    assert space.encode({"a": 3.0, "b": 2.0}, grow=True)[1].tolist() == [3.0, 2.0]
    space.encode(x, grow=False)
    x["b"] = 5.0
    assert space.encode({"a": 7.0, "b": 5.0}, grow=True)[1].tolist() == [7.0, 5.0]
    del x["b"]
    assert space.encode(x, grow=True)[1].tolist() == [7.0]


def test_an_encoding_that_dropped_unknown_names_never_serves_learning():
    space = FeatureSpace()
    space.commit(["a"])
    x = {"a": 1.0, "new": 2.0}
    assert space.encode(x, grow=False)[0].tolist() == [0]
    indices, values, new = space.encode(x, grow=True)
    assert indices.tolist() == [0, 1] and new == ["new"]


def test_the_recall_cache_is_not_pickled_and_odd_values_miss_it():
    import pickle

    space = FeatureSpace()
    space.commit(space.encode({"a": 1.0}, grow=True)[2])
    empty = pickle.dumps(space)
    space.encode({"a": 1.0}, grow=False)
    assert pickle.dumps(space) == empty
    with pytest.raises(InvalidFeature, match="'a'"):
        space.encode({"a": np.array([1.0, 2.0])}, grow=False)


# ---- the fast paths of encode agree with the checked path ----------------------------------------


_NAMES = st.sampled_from(["a", "b", "c", 1, 2, (3, "t"), "new", 7.5])
_VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.sampled_from([0, 0.0, -0.0, True, False, None, "1.5", np.float32(2.5), np.int64(3), 1j]),
)


def _space(intercept):
    space = FeatureSpace(intercept=intercept)
    space.commit(["a", "b", "c", 1, 2, (3, "t")])
    return space


def _checked(space, x, grow):
    try:
        return space._encode_checked(x, grow)
    except InvalidFeature as error:
        return error


def _same(left, right):
    if isinstance(left, Exception) or isinstance(right, Exception):
        return type(left) is type(right) and str(left) == str(right)
    (li, lv, ln), (ri, rv, rn) = left, right
    return (
        li.dtype == ri.dtype == np.int64
        and lv.dtype == rv.dtype == np.float64
        and li.tolist() == ri.tolist()
        and np.array_equal(lv, rv)
        and ln == rn
    )


@given(x=st.dictionaries(_NAMES, _VALUES, max_size=8), intercept=st.booleans())
def test_every_fast_path_equals_the_checked_path_or_declines(x, intercept):
    for grow in (False, True):
        space = _space(intercept)
        expected = _checked(space, x, grow)
        # the Python fallback: accepts only what the checked path encodes without dropping
        plain = space._encode_plain_python(x)
        if plain is not None:
            assert _same((*plain, []), expected)
        # the compiled path, when built
        if features_module._compiled is not None:
            size = len(x) + intercept
            indices, values = np.empty(size, np.int64), np.empty(size, np.float64)
            written = features_module._compiled.encode_plain(
                x, space.index, indices, values, intercept
            )
            assert -1 <= written <= size
            # what the Python fallback accepts, the compiled path accepts too; the fallback may
            # also decline a sample whose values overflow when summed (its one-call finiteness
            # check), which the compiled path checks value by value; the compiled path drops
            # zeros, where the fallback declines
            assert written >= 0 or plain is None
            if written >= 0:
                assert _same((indices[:written], values[:written], []), expected)
        # and the public entry point always gives the checked result
        space._last = None
        try:
            got = space.encode(x, grow)
        except InvalidFeature as error:
            got = error
        assert _same(got, expected)


@pytest.mark.skipif(features_module._compiled is None, reason="the compiled encoder is not built")
def test_the_compiled_encoder_refuses_wrong_output_arrays():
    encode_plain = features_module._compiled.encode_plain
    x, index = {"a": 1.0}, {"a": 0}
    with pytest.raises(TypeError, match="int64"):
        encode_plain(x, index, np.empty(1, np.int32), np.empty(1), False)
    with pytest.raises(TypeError, match="float64"):
        encode_plain(x, index, np.empty(1, np.int64), np.empty(1, np.float32), False)
    with pytest.raises(ValueError, match="too short"):
        encode_plain(x, index, np.empty(1, np.int64), np.empty(1), True)
    with pytest.raises(TypeError):
        encode_plain([("a", 1.0)], index, np.empty(1, np.int64), np.empty(1), False)
    with pytest.raises(ValueError, match="contiguous"):
        encode_plain(x, index, np.empty(4, np.int64)[::2], np.empty(1), False)


def test_a_model_learns_the_same_with_and_without_the_compiled_encoder(monkeypatch):
    from river import datasets

    from imbalance_stream.linear_model import ACOG

    def run():
        model = ACOG(covariance="diag", intercept=True)
        probabilities = []
        for x, y in datasets.Phishing().take(300):
            probabilities.append(model.predict_proba_one(x)[True])
            model.learn_one(x, y)
        return probabilities, model.weights

    compiled = run()
    monkeypatch.setattr(features_module, "_compiled", None)
    assert run() == compiled


# ---- limits: magnitude of values, growth of the space (issue 15, findings 2 and 3) ---------------


@pytest.mark.parametrize("value", [1e155, -1e16, 10**20, np.float64(2e15)])
def test_values_beyond_the_magnitude_limit_are_refused_naming_the_feature(value):
    space = FeatureSpace()
    space.commit(["a"])
    before = pickle.dumps(space)
    for grow in (True, False):
        for sample in ({"a": value}, {"a": 1.0, "b": value}):
            with pytest.raises(InvalidFeature, match="beyond the limit"):
                space.encode(sample, grow=grow)
    assert pickle.dumps(space) == before
    assert space.encode({"a": MAX_ABS_VALUE}, grow=True)[1].tolist() == [MAX_ABS_VALUE]


def test_a_sample_that_would_overgrow_the_space_is_refused_before_any_name_is_added():
    space = FeatureSpace(intercept=True, max_features=10)
    space.commit(space.encode({f"f{j}": 1.0 for j in range(5)}, grow=True)[2])
    before = pickle.dumps(space)
    with pytest.raises(
        FeatureSpaceFull, match="from 6 to 12 columns, past this model's limit of 10"
    ):
        space.encode({f"g{j}": 1.0 for j in range(6)}, grow=True)
    assert pickle.dumps(space) == before
    # known names do not count, and inference never grows the space
    assert len(space.encode({f"f{j}": 2.0 for j in range(5)} | {"g": 1.0}, grow=True)[2]) == 1
    assert len(space.encode({f"g{j}": 1.0 for j in range(100)}, grow=False)[0]) == 1


def test_truncate_is_the_rollback_of_commit():
    space = FeatureSpace()
    space.commit(["a", "b"])
    before = pickle.dumps(space)
    space.commit(["c", "d"])
    space.truncate(2)
    assert pickle.dumps(space) == before and "c" not in space.index
