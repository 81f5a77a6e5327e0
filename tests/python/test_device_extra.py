"""oar.device's stream, memory, context and legacy-tensor API (docs/device.md). Every
expectation was checked against Paddle 3.3.1's CPU build: where it returns a value oar
returns the same, where it raises for want of a GPU oar raises the same exception type."""
import numpy as np
import pytest

import oar

D = oar.device


# ---- streams and events: a CPU build has none ---------------------------------------------
@pytest.mark.parametrize("make", [lambda: D.Stream(), lambda: D.Stream("cpu"),
                                  lambda: D.Stream(priority=1), lambda: D.Event(),
                                  lambda: D.Event(enable_timing=True)])
def test_streams_and_events_cannot_be_made(make):
    with pytest.raises(ValueError, match="CPU only"):
        make()


def test_stream_on_a_gpu_is_a_value_error():
    with pytest.raises(ValueError, match="'gpu'"):
        D.Stream("gpu")


@pytest.mark.parametrize("device", [None, "cpu", oar.CPUPlace()])
def test_current_stream_of_the_cpu_is_a_type_error(device):
    with pytest.raises(TypeError, match="current_stream"):
        D.current_stream(device)


def test_current_stream_of_a_gpu_is_a_value_error():
    with pytest.raises(ValueError, match="gpu"):
        D.current_stream("gpu:0")


def test_set_stream_refuses_a_non_stream():
    with pytest.raises(TypeError, match="set_stream"):
        D.set_stream(None)


def test_stream_guard_of_none_does_nothing():
    assert D.StreamContext is D.stream_guard
    with D.stream_guard() as r:
        assert r is None
        assert D.get_device() == "cpu"
    with D.StreamContext(None):
        pass
    g = D.stream_guard(1)  # refused on entry, as in Paddle
    with pytest.raises(TypeError):
        g.__enter__()


def test_external_streams_and_capture():
    with pytest.raises(ValueError, match="CPU only"):
        D.get_stream_from_external(1)
    assert D.is_current_stream_capturing() is False


# ---- memory counters: refused like Paddle's CPU build; empty_cache is a no-op -------------
@pytest.mark.parametrize("name", ["max_memory_allocated", "max_memory_reserved",
                                  "memory_allocated", "memory_reserved",
                                  "reset_max_memory_allocated", "reset_max_memory_reserved",
                                  "reset_peak_memory_stats"])
@pytest.mark.parametrize("args", [(), ("cpu",)])
def test_device_memory_counters_raise_value_error(name, args):
    with pytest.raises(ValueError, match=f"{name}.*CPU build.*memory_stats"):
        getattr(D, name)(*args)


def test_empty_cache_and_ipc_collect():
    assert D.empty_cache() is None
    with pytest.raises(RuntimeError, match="ipc_collect"):
        D.ipc_collect()


@pytest.mark.parametrize("name", ["get_device_properties", "get_device_name",
                                  "get_device_capability"])
def test_device_properties_raise_value_error(name):
    with pytest.raises(ValueError, match=f"{name}.*CPU only"):
        getattr(D, name)()
    with pytest.raises(ValueError):
        getattr(D, name)("cpu")


def test_is_bf16_supported():
    assert D.is_bf16_supported() is True  # oar converts where the CPU has no bf16 unit
    assert D.is_bf16_supported(False) is oar.amp.is_bfloat16_supported()


# ---- manual_seed --------------------------------------------------------------------------
@pytest.mark.parametrize("seed,want", [(3, 3), ("3", 3), (3.7, 3), (True, 1), (0, 0),
                                       (2 ** 63, 2 ** 63), (2 ** 64 - 1, 2 ** 64 - 1)])
def test_manual_seed_sets_the_cpu_generator(seed, want):
    assert D.manual_seed(seed) is None
    assert oar.get_rng_state()[0].current_seed() == want


def test_manual_seed_repeats_draws():
    D.manual_seed(102)
    a = oar.rand([4]).numpy()
    D.manual_seed(102)
    np.testing.assert_array_equal(a, oar.rand([4]).numpy())


@pytest.mark.parametrize("seed,exc", [(-1, TypeError), (2 ** 64, TypeError),
                                      (None, TypeError), ("abc", ValueError)])
def test_manual_seed_refuses(seed, exc):
    with pytest.raises(exc):
        D.manual_seed(seed)


# ---- device and device_guard contexts -----------------------------------------------------
@pytest.mark.parametrize("arg", ["cpu", "CPU", oar.CPUPlace(), 0, None])
def test_device_context(arg):
    ctx = D.device(arg)
    assert ctx.place == oar.CPUPlace()
    with ctx as r:
        assert r is None
        assert D.get_device() == "cpu"
    assert D.get_device() == "cpu"
    assert D.device() .place == oar.CPUPlace()


@pytest.mark.parametrize("arg,match", [(1, "only has index 0"), (-1, "non-negative"),
                                       ("gpu", "CPU only"), ("gpu:0", "CPU only"),
                                       ("cuda", "CPU only")])
def test_device_refuses(arg, match):
    with pytest.raises(ValueError, match=match):
        D.device(arg)


@pytest.mark.parametrize("arg", ["cpu", oar.CPUPlace()])
def test_device_guard(arg):
    with D.device_guard(arg) as r:
        assert r is None
        assert D.get_device() == "cpu"
        assert oar.ones([2]).place == oar.CPUPlace()
    assert D.get_device() == "cpu"


@pytest.mark.parametrize("arg", [0, None, 1.5])
def test_device_guard_refuses_non_str_non_place(arg):
    with pytest.raises(ValueError, match="string or a Place"):
        D.device_guard(arg)


def test_device_guard_refuses_other_devices():
    for arg in ("gpu", "xpu:0", "foo"):
        with pytest.raises(ValueError):
            D.device_guard(arg)


# ---- legacy typed-tensor factories --------------------------------------------------------
@pytest.mark.parametrize("name,dtype", [
    ("FloatTensor", oar.float32), ("DoubleTensor", oar.float64), ("HalfTensor", oar.float16),
    ("BFloat16Tensor", oar.bfloat16), ("ByteTensor", oar.uint8), ("CharTensor", oar.int8),
    ("ShortTensor", oar.int16), ("IntTensor", oar.int32), ("LongTensor", oar.int64),
    ("BoolTensor", oar.bool)])
def test_typed_tensor_factories(name, dtype):
    f = getattr(D, name)
    empty = f()
    assert empty.dtype == dtype and list(empty.shape) == [0]
    t = f([1, 0])
    assert isinstance(t, oar.Tensor) and t.dtype == dtype and list(t.shape) == [2]
    assert not isinstance(t, f)  # a factory, not a tensor type (as in Paddle)
    shaped = f(2, 3)
    assert shaped.dtype == dtype and list(shaped.shape) == [2, 3]


def test_typed_tensor_values():
    assert D.FloatTensor([[1, 2], [3, 4]]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert D.FloatTensor((1, 2)).tolist() == [1.0, 2.0]
    assert D.LongTensor([1.7]).tolist() == [1]
    assert D.BoolTensor([0, 2]).tolist() == [False, True]
    assert D.ByteTensor([255]).tolist() == [255]
    assert D.HalfTensor([1.5]).tolist() == [1.5]
    assert D.BFloat16Tensor([1.5]).astype("float32").tolist() == [1.5]
    # the class's dtype wins over a dtype= in the data and shape forms, as in Paddle
    assert D.FloatTensor([1], dtype="int32").dtype == oar.float32
    assert D.FloatTensor(2, 3, dtype="int32").dtype == oar.float32
    assert list(D.FloatTensor(0).shape) == [0]
    assert D.FloatTensor([]).dtype == oar.float32


def test_typed_tensor_bad_shapes():
    with pytest.raises(ValueError):
        D.FloatTensor(-1)
    with pytest.raises(TypeError):
        D.FloatTensor(True)


def test_all_names_are_exported():
    for n in ["Stream", "Event", "StreamContext", "current_stream", "device", "device_guard",
              "empty_cache", "get_device_capability", "get_device_name",
              "get_device_properties", "get_stream_from_external", "ipc_collect",
              "is_bf16_supported", "is_current_stream_capturing", "manual_seed",
              "max_memory_allocated", "max_memory_reserved", "memory_allocated",
              "memory_reserved", "reset_max_memory_allocated", "reset_max_memory_reserved",
              "reset_peak_memory_stats", "set_stream", "stream_guard", "FloatTensor",
              "BoolTensor", "BFloat16Tensor"]:
        assert n in D.__all__ and hasattr(D, n), n
