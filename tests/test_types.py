"""Core value types, schedules and the error hierarchy."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from forge import (
    AdapterConstraints,
    AllocationError,
    BindingUsage,
    BufferView,
    CompileError,
    ContextClosed,
    DeviceLost,
    ForgeError,
    GpuUnavailable,
    GpuValidation,
    InvalidArgument,
    OracleMismatch,
    Schedule,
    UnsupportedFeature,
)


def _constraints(**overrides) -> AdapterConstraints:
    base = dict(
        max_workgroup_size=(1024, 1024, 64),
        max_invocations_per_workgroup=1024,
        max_workgroups_per_dimension=(65535, 65535, 65535),
        max_workgroup_storage_bytes=49152,
        max_storage_binding_size=1 << 30,
        max_buffer_size=1 << 31,
    )
    base.update(overrides)
    return AdapterConstraints(**base)


def test_buffer_view_is_frozen_and_keeps_its_fields():
    view = BufferView(256, 64, 1, 0, BindingUsage.UNIFORM)
    assert (view.offset, view.length_bytes, view.binding, view.group, view.usage) == (
        256,
        64,
        1,
        0,
        BindingUsage.UNIFORM,
    )
    assert view.end == 320
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.offset = 0


def test_binding_usage_has_the_four_design_members():
    assert {u.name for u in BindingUsage} == {
        "STORAGE_READ",
        "STORAGE_READ_WRITE",
        "UNIFORM",
        "STORAGE_READ_RESIDENT",
    }


@pytest.mark.parametrize(
    "error, builtin",
    [
        (GpuUnavailable, ImportError),
        (GpuValidation, ValueError),
        (AllocationError, MemoryError),
        (InvalidArgument, ValueError),
        (DeviceLost, RuntimeError),
        (UnsupportedFeature, NotImplementedError),
        (ContextClosed, ValueError),
        (OracleMismatch, AssertionError),
    ],
)
def test_errors_are_forge_errors_and_the_builtin_they_resemble(error, builtin):
    assert issubclass(error, ForgeError) and issubclass(error, builtin)


def test_compile_error_carries_source_target_options_and_log():
    exc = CompileError("failed", source="src", target="cuda", options=("-O3",), log="line 1: error")
    assert (exc.source, exc.target, exc.options, exc.log) == (
        "src",
        "cuda",
        ("-O3",),
        "line 1: error",
    )
    assert "line 1: error" in str(exc)


def test_schedule_text_form_round_trips():
    for text in (
        "wg=128,ipt=4,vec=4",
        "wg=16x16,ipt=1,vec=1,tile=64x64x8",
        "wg=256,ipt=1,vec=4,grid=528",
    ):
        assert str(Schedule.parse(text)) == text
    assert Schedule.parse("wg=128").workgroup_size == (128, 1, 1)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("wg=0", "workgroup size must be positive"),
        ("vec=3", "vector width must be one of"),
        ("ipt=0", "items per invocation must be >= 1"),
        ("bogus=1", "bad schedule item 'bogus=1'"),
        ("wg", "bad schedule item 'wg'"),
        ("wg=a", "bad number in schedule item 'wg=a'"),
    ],
)
def test_bad_schedules_are_refused_with_the_reason(text, reason):
    with pytest.raises(InvalidArgument, match=reason):
        Schedule.parse(text)


def test_numpy_integers_make_the_same_schedule_as_python_ints():
    spelt = Schedule(
        np.int64(64),
        items_per_invocation=np.int32(2),
        vector_width=np.uint8(4),
        tile=(np.int64(8),),
        max_workgroups=np.int16(9),
    )
    plain = Schedule(64, items_per_invocation=2, vector_width=4, tile=(8,), max_workgroups=9)
    assert spelt == plain and hash(spelt) == hash(plain) and str(spelt) == str(plain)
    assert all(
        type(v) is int
        for v in (
            *spelt.workgroup_size,
            spelt.items_per_invocation,
            spelt.vector_width,
            *spelt.tile,
            spelt.max_workgroups,
        )
    )
    assert Schedule((np.int64(8), np.int64(8))).workgroup_size == (8, 8, 1)


@pytest.mark.parametrize(
    "fields, reason",
    [
        ({"workgroup_size": True}, "workgroup size must be an int, got True"),
        ({"workgroup_size": 1.5}, "workgroup size must be an int, got 1.5"),
        ({"workgroup_size": 64.0}, "workgroup size must be an int, got 64.0"),
        ({"workgroup_size": np.float32(64)}, "(float32)"),
        ({"workgroup_size": (8, 8.0)}, "workgroup size must be an int, got 8.0"),
        ({"workgroup_size": (8, -1)}, "workgroup size must be positive, got (8, -1)"),
        ({"workgroup_size": "wg=64"}, "Schedule.parse reads the text form"),
        ({"workgroup_size": None}, "workgroup size must be a sequence, got None"),
        ({"workgroup_size": (1, 1, 1, 1)}, "1 to 3 dimensions"),
        ({"items_per_invocation": 1.5}, "items per invocation must be an int >= 1, got 1.5"),
        ({"items_per_invocation": True}, "items per invocation must be an int >= 1, got True"),
        ({"vector_width": 2.0}, "vector width must be an int, got 2.0"),
        ({"tile": (8, 0.5)}, "tile size must be an int >= 1, got 0.5"),
        ({"tile": 8}, "tile must be a sequence, got 8"),
        ({"max_workgroups": 2.5}, "max_workgroups must be an int >= 1, got 2.5"),
    ],
)
def test_schedule_fields_of_the_wrong_type_are_refused_with_the_reason(fields, reason):
    with pytest.raises(InvalidArgument, match=re.escape(reason)):
        Schedule(**fields)


def test_dispatch_workgroups_is_exact_for_huge_counts():
    # float division would round 2**60 + 1 down to 2**60 and drop the last element
    assert Schedule(1).dispatch_workgroups(2**60 + 1, max_per_dimension=2**62)[0] == 2**60 + 1


def test_dispatch_workgroups_covers_the_elements():
    s = Schedule(64, items_per_invocation=2, vector_width=4)
    assert s.elements_per_workgroup == 512
    assert s.dispatch_workgroups(1) == (1, 1, 1)
    assert s.dispatch_workgroups(512) == (1, 1, 1)
    assert s.dispatch_workgroups(513) == (2, 1, 1)
    assert s.dispatch_workgroups(0) == (1, 1, 1)


def test_dispatch_spills_into_y_beyond_the_per_dimension_limit():
    x, y, z = Schedule(1).dispatch_workgroups(200_000, max_per_dimension=65535)
    assert y == 4 and x * y >= 200_000 and x <= 65535 and z == 1


def test_dispatch_caps_workgroups_for_grid_stride_schedules():
    assert Schedule(256, max_workgroups=100).dispatch_workgroups(10**8) == (100, 1, 1)


def test_dispatch_beyond_two_dimensions_is_unsupported():
    with pytest.raises(UnsupportedFeature, match="max_workgroups_per_dimension"):
        Schedule(1).dispatch_workgroups(10**6, max_per_dimension=100)


def test_schedule_check_names_the_violated_limit():
    c = _constraints(max_workgroup_size=(256, 256, 64), max_invocations_per_workgroup=256)
    Schedule(256).check(c)
    with pytest.raises(UnsupportedFeature, match=r"max_workgroup_size\[x\]=256"):
        Schedule(512).check(c)
    with pytest.raises(UnsupportedFeature, match="max_invocations_per_workgroup=256"):
        Schedule((32, 32)).check(c)


def test_constraints_answer_feature_questions():
    c = _constraints(shader_f64=True)
    assert c.supports("f64") and not c.supports("f16") and c.supports("f32")
    assert not c.supports("subgroups")
