"""The device and mode API (python/oar/device/, _mode.py, version.py, utils/): Paddle's
names, answered truthfully for a CPU-only eager framework; and cpu_isa, the ISA level
of kernel dispatch and its cap."""
import os
import subprocess
import sys

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
