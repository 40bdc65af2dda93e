"""forge._checks: the argument checks every public entry point shares."""

from __future__ import annotations

import math

import numpy as np
import pytest

from forge import InvalidArgument, _checks


@pytest.mark.parametrize("value", [7, np.int8(7), np.uint64(7), np.int64(7)])
def test_python_and_numpy_integers_come_back_as_plain_ints(value):
    result = _checks.integer(value, "n")
    assert result == 7 and type(result) is int


@pytest.mark.parametrize(
    "value", [True, False, np.bool_(True), 7.0, np.float32(7), "7", None, [7], 7 + 0j]
)
def test_bools_floats_and_other_values_are_not_integers(value):
    with pytest.raises(InvalidArgument, match=r"^n must be an int, got .+ \(\w+\)$"):
        _checks.integer(value, "n")


def test_an_integer_below_the_minimum_is_refused_with_both_numbers():
    assert _checks.integer(0, "n", minimum=0) == 0
    with pytest.raises(InvalidArgument, match="^n must be >= 1, got 0$"):
        _checks.integer(0, "n", minimum=1)


def test_an_integer_above_the_maximum_is_refused_with_both_numbers():
    assert _checks.integer(5, "n", maximum=5) == 5
    with pytest.raises(InvalidArgument, match="^n must be <= 5, got 6$"):
        _checks.integer(6, "n", maximum=5)


def test_a_huge_value_is_shown_shortened():
    with pytest.raises(InvalidArgument) as info:
        _checks.integer("x" * 10_000, "n")
    assert len(str(info.value)) < 120


@pytest.mark.parametrize(
    "value, expected",
    [(None, None), (2, 2.0), (0.25, 0.25), (np.float32(1.5), 1.5), (np.int64(3), 3.0)],
)
def test_timeouts_are_none_or_a_positive_number_of_seconds(value, expected):
    result = _checks.timeout(value)
    assert result == expected and (result is None or type(result) is float)


@pytest.mark.parametrize(
    "value, reason",
    [
        ("5", "got '5' (str)"),
        (True, "got True (bool)"),
        (0, "got 0.0"),
        (-1, "got -1.0"),
        (math.nan, "got nan"),
        (math.inf, "got inf"),
        (np.float64(-math.inf), "got -inf"),
        ([1], "got [1] (list)"),
    ],
)
def test_timeouts_that_are_not_finite_positive_numbers_are_refused(value, reason):
    with pytest.raises(InvalidArgument, match=r"^timeout_s must be None or a") as info:
        _checks.timeout(value)
    assert reason in str(info.value)


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"\x01\x02", b"\x01\x02"),
        (bytearray(b"ab"), b"ab"),
        (np.array([1, 2], np.uint16), b"\x01\x00\x02\x00"),
        (np.arange(4, dtype=np.uint8).reshape(2, 2).T, b"\x00\x02\x01\x03"),  # made contiguous
        (np.zeros(1, [("a", "u1"), ("b", "u1")]), b"\x00\x00"),
        (memoryview(np.array([[1, 2]], np.uint8)), b"\x01\x02"),
    ],
)
def test_payloads_are_flat_bytes_of_numbers(data, expected):
    payload = _checks.byte_payload(data)
    assert payload.format == "B" and payload.ndim == 1 and payload.tobytes() == expected


def test_released_memoryviews_and_object_arrays_are_refused():
    released = memoryview(b"abcd")
    released.release()
    with pytest.raises(InvalidArgument, match="released memoryview"):
        _checks.byte_payload(released)
    for objects in (
        np.array([object()]),
        np.array([1, "a"], dtype=object),
        np.zeros(2, [("a", "f4"), ("b", object)]),
    ):
        with pytest.raises(InvalidArgument, match="holds Python objects"):
            _checks.byte_payload(objects)


def test_sequences_become_tuples_and_strings_are_not_sequences():
    assert _checks.sequence([1, 2], "views") == (1, 2)
    assert _checks.sequence(iter((3,)), "views") == (3,)
    for value in ("ab", b"ab", 5, None):
        with pytest.raises(InvalidArgument, match="^views must be a sequence, got"):
            _checks.sequence(value, "views")


class _Opened:
    def __init__(self, capacity_bytes: int = 1, *, timestamps: bool = True) -> None:
        pass


def test_unknown_options_are_refused_naming_them_and_the_known_ones():
    _checks.options(_Opened, {"capacity_bytes": 2, "timestamps": False}, "demo")
    with pytest.raises(
        InvalidArgument,
        match="^demo has no option 'capacity'; its options are: capacity_bytes, timestamps$",
    ):
        _checks.options(_Opened, {"capacity": 2}, "demo")


def test_a_factory_taking_any_keyword_is_left_to_check_its_own_options():
    _checks.options(lambda **options: None, {"anything": 1}, "demo")
