"""The device and mode API (python/oar/device/, _mode.py, version.py, utils/): Paddle's
names, answered truthfully for a CPU-only eager framework."""
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
