"""The wgpu-py internals the wgpu backend relies on (``backends/wgpu/_native.py``) are
still there and still behave as assumed. A wgpu-py release that moves any of them
fails here, naming what moved, before it fails somewhere deep in a context (or, for
``abandon``, as a process that hangs at exit).

Runs in CI on lavapipe; the device tests skip where wgpu has no adapter (fail under
``--require-backend wgpu``)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from oracle.pytest_plugin import require_available

wgpu = pytest.importorskip("wgpu", reason="wgpu-py is not installed")

from backends.wgpu import _device, _native  # noqa: E402  (needs wgpu)

ROOT = Path(__file__).resolve().parents[1]


# -- versions -------------------------------------------------------------------------


def test_the_pin_in_pyproject_is_the_range_these_internals_were_checked_on():
    pins = re.findall(r'"wgpu([<>=!~][^"]*)"', (ROOT / "pyproject.toml").read_text())
    assert pins == [_native.SUPPORTED], (
        f"pyproject.toml pins wgpu{pins} but backends/wgpu/_native.py was checked on "
        f"wgpu{_native.SUPPORTED}: re-verify its internals (this file) and change both"
    )


def test_the_installed_wgpu_py_is_one_they_were_checked_on():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _native.check_version(), wgpu.__version__


@pytest.mark.parametrize("version", ["0.33.0", "0.31.2", "1.0.0"])
def test_another_wgpu_py_warns_naming_what_to_reverify(version):
    with pytest.warns(_native.UntestedWgpuWarning) as caught:
        assert not _native.check_version(version)
    message = str(caught[0].message)
    for named in (
        version,
        _native.SUPPORTED,
        "wgpu.backends.wgpu_native._api.libf",
        "wgpuDevicePoll",
        "GPUDevice._internal, _queue, _poller",
        "READ_NOSYNC",
        "device._poller",
        "tests/test_wgpu_native.py",
    ):
        assert named in message, (named, message)


def test_a_patch_release_of_the_checked_series_is_accepted():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _native.check_version("0.32.7")


# -- presence -------------------------------------------------------------------------


def test_every_function_constant_type_and_field_used_is_there():
    assert _native.missing_internals() == []


def test_nothing_missing_is_reported_as_missing(monkeypatch):
    monkeypatch.setattr(_native, "LIBF_FUNCTIONS", (*_native.LIBF_FUNCTIONS, "wgpuNoSuchThing"))
    monkeypatch.setattr(_native, "STRUCT_FIELDS", {"WGPUAdapterInfo": ("noSuchField",)})
    assert _native.missing_internals() == [
        "wgpu.backends.wgpu_native._api.libf.wgpuNoSuchThing",
        "the field WGPUAdapterInfo.noSuchField",
    ]


@pytest.fixture(scope="module")
def adapter(request):
    require_available(request.config, "wgpu")
    return _device.select_adapter()


@pytest.fixture
def device(adapter):
    """A device of its own (tests destroy or abandon it)."""
    return _device.request_device(adapter, [])


def _empty_command_buffer(device):
    return device.create_command_encoder().finish()


def test_the_objects_carry_the_attributes_used(adapter, device):
    objects = {
        "GPUAdapter": adapter,
        "GPUDevice": device,
        "GPUQueue": device.queue,
        "GPUCommandBuffer": _empty_command_buffer(device),
    }
    assert set(objects) == set(_native.OBJECT_ATTRIBUTES)
    for cls, names in _native.OBJECT_ATTRIBUTES.items():
        obj = objects[cls]
        assert type(obj).__name__ == cls
        for name in names:
            assert hasattr(obj, name), f"wgpu-py's {cls} has no attribute {name!r} any more"
    assert isinstance(_native.native_handle(device), _native.ffi.CData)
    assert device._queue is device.queue


# -- behaviour ------------------------------------------------------------------------


def test_identity_readings(adapter, device):
    assert re.fullmatch(r"\d+(\.\d+)+", _native.native_version())
    sizes = _native.subgroup_sizes(adapter)
    assert sizes is None or (isinstance(sizes, tuple) and 0 < sizes[0] <= sizes[1])
    period = _native.timestamp_period_ns(device.queue)
    assert isinstance(period, float) and period > 0


def test_submissions_are_numbered_and_waited_for(device):
    first = _native.submit(device.queue, _empty_command_buffer(device))
    second = _native.submit(device.queue, _empty_command_buffer(device))
    assert isinstance(first, int) and second == first + 1
    _native.wait_for_submission(device, second)
    _native.wait_idle(device)
    _native.wait_idle(_native.native_handle(device))
    wait = _native.WorkDoneWait(device, device.queue)
    try:
        for _ in range(100_000):
            if wait.poll():
                break
        else:
            pytest.fail("the work-done callback never fired for an idle queue")
        assert wait.succeeded and wait.status is not None
    finally:
        wait.forget()
    assert wait.status is None  # forgotten: a late callback changes nothing


def test_read_nosync_maps_without_the_empty_submit_plain_read_adds(device):
    """The reason for "READ_NOSYNC": wgpu-py's plain "READ" submits an empty command
    buffer before the first map of a buffer; the nosync mode does not."""
    usage = wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST

    def submits_during(map_buffer) -> int:
        buffer = device.create_buffer(size=16, usage=usage)
        before = _native.submit(device.queue, _empty_command_buffer(device))
        map_buffer(buffer).sync_wait()
        assert bytes(buffer.read_mapped(0, 16, copy=True)) == bytes(16)
        buffer.unmap()
        return _native.submit(device.queue, _empty_command_buffer(device)) - before - 1

    assert submits_during(lambda b: _native.map_read_nosync(b, 0, 16)) == 0
    assert submits_during(lambda b: b.map_async("READ", 0, 16)) == 1


def test_destroy_is_seen_and_a_native_destroy_is_not(device, adapter):
    assert not _native.device_destroyed(device)
    assert _device.destroyed_reason(device) is None
    device.destroy()
    assert _native.device_destroyed(device)
    assert _device.destroyed_reason(device) == "the device was destroyed"
    other = _device.request_device(adapter, [])
    _native.destroy_natively(other)
    assert not _native.device_destroyed(other)


def test_wgpu_natives_message_on_a_destroyed_device_reads_as_lost(device):
    _native.destroy_natively(device)
    with pytest.raises(wgpu.GPUError) as caught:
        _native.submit(device.queue, _empty_command_buffer(device))
    lost = _device.lost_error("submitting", caught.value)
    assert lost is not None, f"wgpu-native's message is not recognised as loss: {caught.value}"
    assert isinstance(lost, _device.DeviceLost)
    assert _device.lost_error("compiling", wgpu.GPUValidationError("bad WGSL")) is None


def test_an_abandoned_device_keeps_its_native_handles_out_of_wgpu_py(device):
    handle = _native.native_handle(device)
    queue = device.queue
    _native.submit(queue, _empty_command_buffer(device))
    _native.abandon(device, [queue])
    assert _native.native_handle(device) is None and _native.native_handle(queue) is None
    assert any(kept[1] is device for kept in _native._ABANDONED if isinstance(kept, tuple))
    device._release()  # what a finalizer would do: with no handle it frees nothing,
    _native.wait_idle(handle)  # so the native device is still there to poll


# -- cffi's parsed types -----------------------------------------------------------------

_PARSES_AFTER_WARMING = """
import cffi.cparser, json, sys
from backends.wgpu import _native
added = _native.warm_type_cache()
seen = []
parse = cffi.cparser.Parser.parse_type_and_quals
def recording(self, text):
    seen.append(text)
    return parse(self, text)
cffi.cparser.Parser.parse_type_and_quals = recording
import forge, oracle
ctx = forge.open_context("wgpu")
for kernel, size in (("axpy", 1000), ("gemm", 67), ("softmax", 100), ("raw_affine", 129)):
    oracle.evaluate(ctx, forge.get_kernel(kernel), size=size, samples=2)
ctx.close()
print(json.dumps({"added": added, "parsed_later": seen}))
"""


def test_opening_and_running_parse_no_c_type_the_warm_cache_lacks(request):
    """A fresh process warms cffi's type cache in one pass, then opens a context and
    runs kernels (timestamps, reads, uniforms): cffi parses nothing more. A wgpu-py
    that builds a new C type fails here, naming it for ``PARSED_TYPES``."""
    require_available(request.config, "wgpu")
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _PARSES_AFTER_WARMING],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["added"] >= len(_native.PARSED_TYPES) - 5, result
    assert result["parsed_later"] == [], (
        f"wgpu-py parsed C types warm_type_cache does not know: {result['parsed_later']}; "
        "add them to backends/wgpu/_native.py's PARSED_TYPES"
    )


def test_warmed_types_are_the_types_cffi_parses_one_by_one():
    _native.warm_type_cache()
    ffi = _native.ffi
    for text in _native.PARSED_TYPES:
        ctype = ffi._parser.parse_type(text)  # as cffi parses a text it has not met
        if ctype.is_raw_function:
            ctype = ctype.as_function_pointer()
        with ffi._lock:
            one_by_one = ffi._get_cached_btype(ctype)
        assert ffi._parsed_types[text] == (one_by_one, text.startswith("void(")), text


def test_an_unknown_type_text_warms_nothing_and_leaves_the_lazy_path():
    """On a surprise (here, a text cffi cannot parse) nothing is added, and cffi goes
    on parsing each text on first use."""
    before = dict(_native.ffi._parsed_types)
    assert _native.warm_type_cache(("WGPUNoSuchType *",)) == 0
    assert _native.ffi._parsed_types == before


def test_a_module_without_runtime_checks_is_made_and_bad_wgsl_raises_as_usual(device):
    good = (
        "@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n"
        "@compute @workgroup_size(1) fn main() { var t = array<f32, 2>(1.0, 2.0); "
        "for (var k = 0u; k < 2u; k++) { y[k] = t[k]; } }"
    )
    module = _native.create_unchecked_shader_module(device, "unchecked", good)
    assert isinstance(module, wgpu.GPUShaderModule)
    device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})
    bad = good.replace("t[k]", "t[k] + nowhere")
    with pytest.raises(wgpu.GPUValidationError, match="nowhere"):
        device.create_shader_module(code=bad)
    with pytest.raises(wgpu.GPUValidationError, match="nowhere"):
        _native.create_unchecked_shader_module(device, "bad", bad)
