"""Pairing two predictions of the same documents: align_ids and --id-col."""

from __future__ import annotations

import numpy as np
import pytest

from f1posterior.predictions import align_ids


class TestAlignIds:
    def test_permutation_reorders_other_ids(self) -> None:
        rng = np.random.default_rng(0)
        ids = np.array([f"doc{i}" for i in range(200)])
        other = ids[rng.permutation(200)]
        perm = align_ids(ids, other)
        assert perm.dtype == np.intp
        np.testing.assert_array_equal(other[perm], ids)

    def test_identity_when_aligned(self) -> None:
        np.testing.assert_array_equal(align_ids([3, 1, 2], [3, 1, 2]), [0, 1, 2])

    def test_integer_ids(self) -> None:
        np.testing.assert_array_equal(align_ids(np.array([5, 7, 9]), [9, 5, 7]), [1, 2, 0])

    def test_repeated_id_in_ids(self) -> None:
        with pytest.raises(
            ValueError, match=r"^new\.csv must not repeat a document id .*1 repeated id: 'a'$"
        ):
            align_ids(["a", "b", "a"], ["a", "b", "c"], name="new.csv", other_name="base.csv")

    def test_repeated_id_in_other_ids(self) -> None:
        with pytest.raises(
            ValueError, match=r"^base\.csv must not repeat .*2 repeated ids: 'c', 'b'$"
        ):
            align_ids(
                ["a", "b", "c", "d"], ["c", "b", "b", "c"], name="new.csv", other_name="base.csv"
            )

    def test_missing_on_both_sides(self) -> None:
        msg = (
            r"^ids and baseline ids must hold the same document ids, one to one; 1 id of ids "
            r"is missing from baseline ids: 'x'; 2 ids of baseline ids are missing from ids: "
            r"'z', 'y'$"
        )
        with pytest.raises(ValueError, match=msg):
            align_ids(["a", "x"], ["z", "a", "y"])

    def test_shows_five_and_counts_the_rest(self) -> None:
        ids = [f"a{i}" for i in range(12)]
        other = [f"b{i}" for i in range(12)]
        with pytest.raises(
            ValueError, match=r"12 ids of ids are missing .*'a4', \.\.\. \(7 more\);"
        ):
            align_ids(ids, other)

    def test_string_and_number_ids_differ(self) -> None:
        with pytest.raises(ValueError, match=r"1 id of ids is missing from baseline ids: '1'"):
            align_ids(["1"], [1])

    def test_control_characters_escaped_in_message(self) -> None:
        with pytest.raises(ValueError, match=r"'evil\\n### passed\\x1b\[0m'$") as info:
            align_ids(["ok"], ["ok", "evil\n### passed\x1b[0m"])
        assert "\n" not in str(info.value)

    def test_empty_ids(self) -> None:
        with pytest.raises(
            ValueError, match=r"^ids must hold at least one document id; got 0 ids$"
        ):
            align_ids([], ["a"])

    def test_two_dimensional_ids(self) -> None:
        with pytest.raises(
            ValueError, match=r"^baseline ids must be a 1-D sequence .*got shape \(2, 1\)$"
        ):
            align_ids(["a", "b"], np.array([["a"], ["b"]]))

    def test_string_is_not_a_sequence_of_ids(self) -> None:
        with pytest.raises(
            TypeError, match=r"^ids must be a 1-D sequence of document ids; got 'abc'$"
        ):
            align_ids("abc", ["a", "b", "c"])

    def test_unhashable_id(self) -> None:
        with pytest.raises(
            TypeError,
            match=r"^baseline ids must hold hashable document ids; got \[1\] at position 0$",
        ):
            align_ids([1], [[1]])

    def test_nan_id(self) -> None:
        with pytest.raises(
            ValueError, match=r"^ids must not contain NaN ids; got NaN at position 1$"
        ):
            align_ids([1.0, float("nan")], [1.0, 2.0])

    def test_linear_time_on_many_ids(self) -> None:
        # 200,000 ids: a quadratic list lookup would take minutes
        n = 200_000
        ids = np.arange(n)
        other = np.random.default_rng(1).permutation(n)
        perm = align_ids(ids, other)
        np.testing.assert_array_equal(other[perm], ids)
