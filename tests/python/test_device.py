"""oar.device and the mode API (python/oar/device/, _mode.py, version.py, utils/): Paddle's
names, answered truthfully for a CPU-only eager framework; cpu_isa, the ISA level of
kernel dispatch and its cap; streams, events, memory counters, manual_seed, the device
and device_guard contexts, the legacy typed-tensor factories and classes
(oar.FloatTensor, ...) and oar.Generator. Where Paddle 3.3.1's CPU build returns a value
oar returns the same; where it raises for want of a GPU oar raises the same exception
type."""
import os
import subprocess
import sys

import numpy as np
import pytest

import oar


@pytest.mark.parametrize("device", ["cpu", "CPU", oar.CPUPlace()])
def test_set_device_cpu(device):
    assert oar.set_device(device) == oar.CPUPlace()
    assert oar.device.set_device(device) == oar.CPUPlace()
    assert oar.get_device() == "cpu" and oar.device.get_device() == "cpu"


@pytest.mark.parametrize("device", ["gpu", "gpu:0", "xpu", "npu:1", "ipu", 0])
def test_set_device_other_raises(device):
    with pytest.raises(ValueError, match="CPU only"):
        oar.set_device(device)
    with pytest.raises(ValueError, match="set_device: argument 'device'"):
        oar.device.set_device(device)


def test_set_device_bad_argument():
    with pytest.raises(ValueError, match="must look like"):
        oar.set_device("cpu:zero")
    with pytest.raises(TypeError, match="'device' must be a str or a Place"):
        oar.set_device(1.5)


def test_get_device_of_tensor():
    assert oar.get_device(oar.to_tensor([1, 2, 3], place=oar.CPUPlace())) == -1
    with pytest.raises(TypeError, match="'input' must be a Tensor"):
        oar.get_device([1, 2])


def test_compiled_with_is_false():
    for name in ["cuda", "rocm", "xpu", "ipu", "cinn"]:
        assert getattr(oar.device, f"is_compiled_with_{name}")() is False
        assert getattr(oar, f"is_compiled_with_{name}")() is False
    # distribute: whether this build has the Gloo collectives (oar.distributed)
    assert oar.is_compiled_with_distribute() is hasattr(oar._C, "_dist_init")
    assert oar.device.is_compiled_with_custom_device("npu") is False
    assert oar.device.get_all_device_type() == []
    assert oar.device.get_available_device() == []
    assert oar.device.device_count() == 0 and oar.device.is_available() is False


@pytest.mark.parametrize("place", [lambda: oar.CUDAPlace(0), lambda: oar.XPUPlace(0),
                                   oar.CUDAPinnedPlace, oar.XPUPinnedPlace, oar.IPUPlace])
def test_accelerator_places_raise(place):
    with pytest.raises(ValueError, match="CPU only"):
        place()


def test_modes():
    assert oar.in_dynamic_mode() is True
    oar.disable_static()
    oar.disable_static(oar.CPUPlace())
    assert oar.in_dynamic_mode() is True
    with pytest.raises(RuntimeError, match="runs eagerly"):
        oar.enable_static()
    with pytest.raises(ValueError, match="CPU only"):
        oar.disable_static("gpu:0")


def test_version(capsys):
    v = oar.version
    assert v.full_version == oar.__version__ == f"{v.major}.{v.minor}.{v.patch}"
    # Paddle's answers for a build without CUDA: strings, and `cuda` is a callable str
    assert v.cuda() == v.cuda == "False" and v.cudnn() == "False" and v.nccl() == "0"
    assert v.tensorrt() == "None" and v.cuda_archs() == [] and v.hip is None
    v.show()
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"full_version: {v.full_version}" and "cuda: False" in out
    assert out[-1] == "cuda_archs: []"


def test_run_check(capsys):
    oar.utils.run_check()
    assert "installed successfully" in capsys.readouterr().out


def test_run_check_detects_a_wrong_gradient(monkeypatch):
    # run_check compares against the closed form: a broken Linear must make it fail.
    real = oar.nn.Linear

    def broken(*args, **kwargs):
        layer = real(*args, **kwargs)
        forward = layer.forward
        layer.forward = lambda x: forward(x) * 1.5
        return layer

    monkeypatch.setattr(oar.nn, "Linear", broken)
    with pytest.raises(RuntimeError, match="run_check: the forward is wrong"):
        oar.utils.run_check()


LEVELS = ("sse2", "avx2", "avx512", "avx512_bf16")


def _run(code, **env):
    """`code` in a new interpreter with `env` added (OAR_MAX_CPU_ISA is read at import)."""
    return subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=120)


def test_cpu_isa_reports_the_dispatched_and_detected_levels():
    isa = oar.device.cpu_isa()
    assert isa.detected in LEVELS + ("scalar",)
    cap = os.environ.get("OAR_MAX_CPU_ISA")
    if isa.detected == "scalar" or not cap:
        assert isa.dispatched == isa.detected
    else:  # the lower of the CPU's level and the cap
        assert isa.dispatched == min(isa.detected, cap, key=LEVELS.index)


@pytest.mark.skipif(oar.device.cpu_isa().detected == "scalar", reason="x86-64 levels only")
def test_cpu_isa_cap_moves_every_dispatch_down():
    # sse2 is below every x86-64 CPU oar dispatches on: the SIMD tables, the packer and
    # oneDNN all follow, and the 16-bit instructions count as absent.
    out = _run("import oar, oar.amp\n"
               "print(tuple(oar.device.cpu_isa()), oar.amp.is_bfloat16_supported(),\n"
               "      oar.amp.is_float16_supported())", OAR_MAX_CPU_ISA="sse2")
    assert out.returncode == 0, out.stderr
    detected = oar.device.cpu_isa().detected
    assert out.stdout.split() == [f"('sse2',", f"'{detected}')", "False", "False"]
    # A cap above the CPU changes nothing.
    out = _run("import oar; print(oar.device.cpu_isa().dispatched)",
               OAR_MAX_CPU_ISA="avx512_bf16")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == detected


def test_cpu_isa_cap_rejects_an_unknown_level_at_import():
    out = _run("import oar", OAR_MAX_CPU_ISA="avx1024")
    assert out.returncode != 0
    assert ("OAR_MAX_CPU_ISA is 'avx1024'; expected one of sse2, avx2, avx512, avx512_bf16"
            in out.stderr), out.stderr


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


def test_the_counters_the_errors_point_to_exist():
    x = oar.ones([1024])
    oar.reset_peak_memory()
    before = oar.memory_stats()["bytes_in_use"]
    y = x * 2
    assert oar.memory_stats()["peak_bytes"] >= before + 4096
    del y


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


# ---- typed-tensor names -------------------------------------------------------------------
TYPES = [("BFloat16Tensor", "bfloat16"), ("BoolTensor", "bool"), ("ByteTensor", "uint8"),
         ("CharTensor", "int8"), ("DoubleTensor", "float64"), ("FloatTensor", "float32"),
         ("HalfTensor", "float16"), ("IntTensor", "int32"), ("LongTensor", "int64"),
         ("ShortTensor", "int16")]


@pytest.mark.parametrize("name, dtype", TYPES)
def test_typed_tensor_constructors(name, dtype):
    T = getattr(oar, name)
    assert isinstance(T, type) and name in oar.__all__ and T is getattr(oar.device, name)
    e, v, s = T(), T([1, 2]), T(2, 3)
    assert e.dtype.name == v.dtype.name == s.dtype.name == dtype
    assert e.shape == [0] and s.shape == [2, 3] and T(4).shape == [4] and T(0).shape == [0]
    assert v.astype("float64").numpy().tolist() == [1.0, 1.0 if dtype == "bool" else 2.0]
    # Paddle's classes return plain tensors, never their own instances
    assert isinstance(v, oar.Tensor) and not isinstance(v, T) and v.stop_gradient


def test_typed_tensor_conversions_follow_the_dtype():
    assert oar.ByteTensor([300, -1]).numpy().tolist() == \
        np.array([300, -1]).astype(np.uint8).tolist()
    assert oar.CharTensor([200]).numpy().tolist() == np.array([200]).astype(np.int8).tolist()
    assert oar.IntTensor([1.7, -1.7]).numpy().tolist() == [1, -1]
    assert oar.BoolTensor([0, 2]).numpy().tolist() == [False, True]
    assert oar.LongTensor(((1, 2), (3, 4))).numpy().tolist() == [[1, 2], [3, 4]]
    assert oar.FloatTensor([1.5], dtype="float64").dtype == oar.float32  # unused, as Paddle
    a = oar.FloatTensor(np.array([1, 2]))  # Paddle 3.3.1 keeps int64 (docs)
    assert a.dtype == oar.float32 and a.numpy().tolist() == [1.0, 2.0]
    d = oar.DoubleTensor(oar.to_tensor([1, 2]), oar.CPUPlace(), stop_gradient=False)
    assert d.dtype == oar.float64 and not d.stop_gradient
    assert oar.FloatTensor(np.array([1.0]), dtype="float64").dtype == oar.float64


@pytest.mark.parametrize("args, kwargs, err", [
    ((2.5,), {}, ValueError), ((2, 3.0), {}, ValueError), ((np.int64(3),), {}, ValueError),
    ((-1,), {}, ValueError), ((True,), {}, TypeError),
    ((np.array([1.0]),), {"bogus": 1}, TypeError),
    ((np.array([1.0]), None), {"place": None}, TypeError)])
def test_typed_tensor_errors(args, kwargs, err):
    with pytest.raises(err):
        oar.FloatTensor(*args, **kwargs)


def test_typed_tensor_error_names_the_constructor():
    with pytest.raises(ValueError, match=r"LongTensor\(\): the first argument"):
        oar.LongTensor(2.5)


# ---- Generator -----------------------------------------------------------------------------
def test_generator_is_the_default_generator():
    g = oar.Generator()
    assert g is oar.seed(11) and isinstance(g, oar.Generator)
    assert oar.Generator("cpu") is g and oar.Generator(oar.CPUPlace()) is g
    assert oar.Generator(0) is g and oar.Generator(device=None) is g
    assert g.manual_seed(5) is g and g.initial_seed() == 5 == oar.random.initial_seed()
    state = g.get_state()
    a = oar.rand([4]).numpy()
    r1 = g.random()
    g.set_state(state)
    assert (oar.rand([4]).numpy() == a).all() and g.random() == r1 and 0 <= r1 < 2 ** 64
    assert g.random() != r1  # it advances
    s = g.seed()
    assert g.initial_seed() == s and isinstance(s, int)


def test_generator_numbered_states():
    g = oar.Generator()
    assert g.get_state_index() == 0
    g.manual_seed(1)
    fresh = g.get_state()
    first = oar.rand([3]).numpy()  # index 0 has drawn once
    i = g.register_state_index(fresh)
    try:
        assert i >= 1 and g.get_state_index() == i  # registering switches to it
        assert (oar.rand([3]).numpy() == first).all()  # index i starts at `fresh`
        second = oar.rand([3]).numpy()
        g.set_state_index(0)
        after_first = oar.rand([3]).numpy()
        assert (after_first == second).all()  # index 0 resumed after its one draw
        g.set_state_index(i)
        third = oar.rand([3]).numpy()
        g.set_state(fresh)
        oar.rand([3]), oar.rand([3])
        assert (oar.rand([3]).numpy() == third).all()
    finally:
        g.set_state_index(0)


@pytest.mark.parametrize("device, err", [("gpu", ValueError), ("gpu:0", ValueError),
                                         ("foo", ValueError), (3, ValueError),
                                         (1.5, TypeError)])
def test_generator_device_errors(device, err):
    with pytest.raises(err, match="Generator"):
        oar.Generator(device)


def test_generator_state_index_errors():
    g = oar.Generator()
    with pytest.raises(ValueError, match=r"set_state_index\(\): argument 'index'"):
        g.set_state_index(10 ** 6)
    with pytest.raises(TypeError, match=r"set_state_index\(\): argument 'index'"):
        g.set_state_index("1")
    with pytest.raises(TypeError, match=r"register_state_index\(\): argument 'state'"):
        g.register_state_index(3)
    assert g.get_state_index() == 0
