"""oar.load of Paddle's pickled checkpoints (oar/framework/paddle_pickle.py): files written
by Paddle 3.3.1 (tests/python/fixtures/paddle_checkpoints/, made by make_fixtures.py
there), pickles written here in paddle.save's documented layout, hostile pickles refused
before anything runs, corrupt ones refused cleanly, and oar.save(format="paddle")."""

import collections
import io
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import oar
from oar.framework.io import CheckpointError, UnsafeCheckpointError

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "paddle_checkpoints")
with open(os.path.join(FIXTURES, "expected.json")) as _f:
    EXPECTED = json.load(_f)


def fixture(name):
    return os.path.join(FIXTURES, name)


def dumps(obj, protocol=4, reduce=None):
    """A pickle of obj; reduce(o) gives paddle.save's reduction of a stand-in object."""

    class P(pickle.Pickler):
        def reducer_override(self, o):
            return reduce(o) if reduce is not None and isinstance(o, Stand) else NotImplemented

    buf = io.BytesIO()
    P(buf, protocol).dump(obj)
    return buf.getvalue()


class Stand:  # stands for a Paddle Tensor / DenseTensor in a pickle written here
    def __init__(self, name, array):
        self.name, self.array = name, array


# ---- files written by Paddle -------------------------------------------------------------
@pytest.mark.parametrize("name", ["linear.pdparams", "linear_p2.pdparams"])
def test_a_paddle_state_dict_loads_into_a_layer_with_paddle_outputs(name):
    sd = oar.load(fixture(name))
    assert sorted(sd) == ["bias", "weight"]  # Paddle's name table is dropped, as paddle.load
    assert sd["weight"].name == "linear_0.w_0" and sd["bias"].name == "linear_0.b_0"
    assert sd["weight"].shape == [4, 3] and sd["weight"].dtype == oar.float32
    layer = oar.nn.Linear(4, 3)
    layer.set_state_dict(sd)
    y = layer(oar.to_tensor(EXPECTED["x"])).numpy()
    np.testing.assert_allclose(y, EXPECTED["y"], rtol=1e-6, atol=1e-6)


def test_protocols_2_and_4_give_the_same_values():
    a, b = oar.load(fixture("linear.pdparams")), oar.load(fixture("linear_p2.pdparams"))
    for k in a:
        np.testing.assert_array_equal(a[k].numpy(), b[k].numpy())


def test_paddle_adam_state_resumes_with_paddles_next_step():
    layer = oar.nn.Linear(4, 3)
    layer.set_state_dict(oar.load(fixture("linear_step1.pdparams")))
    opt = oar.optimizer.Adam(learning_rate=0.1, parameters=layer.parameters())
    opt.set_state_dict(oar.load(fixture("adam.pdopt")))  # no step entry: from beta1**(t+1)
    layer(oar.to_tensor(EXPECTED["x"])).sum().backward()
    opt.step()
    for k, v in layer.state_dict().items():
        np.testing.assert_allclose(v.numpy(), EXPECTED["step2"][k], rtol=1e-5, atol=1e-5)


def test_nested_containers_as_paddle_load_returns_them():
    got = oar.load(fixture("nested.pdparams"))
    assert got["epoch"] == 3 and got["lr"] == 0.5 and got["tag"] == "run"
    w = got["model"]["w"]
    assert isinstance(w, oar.Tensor) and w.numpy().tolist() == [[1.0, 2.0]]
    assert got["model"]["b"].dtype == oar.int64
    assert isinstance(got["history"], list) and got["history"][1] == 1.5
    assert got["history"][0].numpy().tolist() == [0.5, 0.25]
    assert isinstance(got["pair"], tuple) and got["pair"][1] is None
    assert got["pair"][0].numpy().tolist() == [True, False]
    # a numpy array saved as one stays one (paddle.load keeps it when tensors are tuples)
    assert isinstance(got["array"], np.ndarray) and got["array"].dtype == np.int32


def test_one_tensor_and_return_numpy():
    t = oar.load(fixture("tensor.pdtensor"))
    assert t.dtype == oar.float64 and t.numpy().tolist() == [[1.5, -2.0]]
    arr = oar.load(fixture("tensor.pdtensor"), return_numpy=True)
    assert isinstance(arr, np.ndarray) and arr.tolist() == [[1.5, -2.0]]
    sd = oar.load(fixture("linear.pdparams"), return_numpy=True)
    assert all(isinstance(v, np.ndarray) for v in sd.values())
    nested = oar.load(fixture("nested.pdparams"), return_numpy=True)
    assert isinstance(nested["model"]["w"], np.ndarray)


def test_keep_name_table():
    sd = oar.load(fixture("linear.pdparams"), keep_name_table=True)
    assert sd["StructuredToParameterName@@"] == {"weight": "linear_0.w_0", "bias": "linear_0.b_0"}


def test_unknown_configs_are_an_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'return_numpi'"):
        oar.load(fixture("linear.pdparams"), return_numpi=True)


# ---- pickles written here in paddle.save's layout ----------------------------------------
@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_every_protocol_of_a_state_dict(tmp_path, protocol):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    sd = collections.OrderedDict(
        [("fc.weight", w), ("step", np.array([7], np.int64)),
         ("StructuredToParameterName@@", {"fc.weight": "linear_9.w_0", "step": "s"})])
    path = tmp_path / "m.pdparams"
    path.write_bytes(dumps(sd, protocol))
    got = oar.load(path)
    assert isinstance(got, collections.OrderedDict) and list(got) == ["fc.weight", "step"]
    np.testing.assert_array_equal(got["fc.weight"].numpy(), w)
    assert got["fc.weight"].name == "linear_9.w_0" and got["step"].dtype == oar.int64


def test_paddles_dense_tensor_form_is_read_without_eval():
    arr = np.array([[1.0, 2.0]], np.float32)
    data = dumps({"t": Stand("x", arr)}, reduce=lambda o: (eval, ("data", {"data": o.array})))
    got = oar.load(io.BytesIO(data))
    assert got["t"].numpy().tolist() == [[1.0, 2.0]]


def test_paddles_split_big_arrays_are_joined():
    # protocol 2/3 split arrays over 1 GiB into slices with a table (small ones here)
    whole = np.arange(10, dtype=np.float32)
    saved = {"w@@.0": whole[:6], "w@@.1": whole[6:],
             "UnpackBigParamInfor@@": {"w": {"OriginShape": (2, 5), "slices": ["w@@.0", "w@@.1"]}},
             "StructuredToParameterName@@": {"w": "p"}}
    got = oar.load(io.BytesIO(dumps(saved, 2)))
    assert list(got) == ["w"] and got["w"].numpy().tolist() == whole.reshape(2, 5).tolist()


def test_uint16_arrays_are_paddles_bfloat16():
    bits = np.array([0x3F80, 0xC000], np.uint16)  # 1.0, -2.0 in bfloat16
    got = oar.load(io.BytesIO(dumps({"w": bits, "StructuredToParameterName@@": {"w": "w"}})))
    assert got["w"].dtype == oar.bfloat16 and got["w"].astype("float32").numpy().tolist() == [1.0, -2.0]


def test_a_stream_holds_a_pickle_then_a_safetensors_checkpoint():
    buf = io.BytesIO()
    oar.save({"a": oar.to_tensor([1.0])}, buf, format="paddle")
    oar.save({"b": oar.to_tensor([2.0])}, buf)
    buf.seek(0)
    assert oar.load(buf)["a"].numpy().tolist() == [1.0]  # stops at the pickle's end
    assert oar.load(buf)["b"].numpy().tolist() == [2.0]


# ---- hostile pickles -----------------------------------------------------------------------
class Evil:
    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return self.fn, self.args


HOSTILE = {
    "posix.system": lambda marker: Evil(os.system, f"touch {marker}"),
    "builtins.eval": lambda marker: Evil(eval, f"open({str(marker)!r}, 'w')"),
    "builtins.exec": lambda marker: Evil(exec, f"open({str(marker)!r}, 'w')"),
    "subprocess.call": lambda marker: Evil(subprocess.call, ["touch", str(marker)]),
    "io.open": lambda marker: Evil(open, str(marker), "w"),
    "builtins.getattr": lambda marker: Evil(getattr, Evil(__import__, "os"), "system"),
    "numpy.load": lambda marker: Evil(np.load, str(marker)),
}


@pytest.mark.parametrize("global_name,protocol", [(n, 4) for n in sorted(HOSTILE)]
                         + [("posix.system", 2)])
def test_a_hostile_pickle_is_refused_and_nothing_runs(tmp_path, global_name, protocol):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pdparams"
    # inside a state dict, as a malicious checkpoint would hide it
    evil = HOSTILE[global_name](marker)
    path.write_bytes(pickle.dumps({"weight": np.zeros(2), "x": evil}, protocol))
    code = ("import oar, sys\n"
            "from oar.framework.io import UnsafeCheckpointError\n"
            "try:\n    oar.load(sys.argv[1])\n"
            "except UnsafeCheckpointError as e:\n    print('REFUSED', e.global_name); print(e)\n")
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f"REFUSED {global_name}" in r.stdout, r.stdout
    assert str(path) in r.stdout and "nothing was called" in r.stdout
    assert not marker.exists()


def test_eval_of_anything_but_paddles_form_is_refused(tmp_path):
    data = dumps({"t": Stand("x", None)}, reduce=lambda o: (eval, ("1 + 1",)))
    with pytest.raises(UnsafeCheckpointError, match="builtins.eval") as e:
        oar.load(io.BytesIO(data))
    assert e.value.global_name == "builtins.eval"


def test_object_arrays_and_foreign_subtypes_are_refused():
    with pytest.raises(UnsafeCheckpointError, match="object"):
        oar.load(io.BytesIO(pickle.dumps({"w": np.array([1, "a"], dtype=object)}, 4)))
    reconstruct = np.ndarray.__reduce__(np.empty(0))[0]
    data = dumps({"t": Stand("x", None)},
                 reduce=lambda o: (reconstruct, (collections.OrderedDict, (0,), b"b")))
    with pytest.raises(UnsafeCheckpointError, match="_reconstruct"):
        oar.load(io.BytesIO(data))


# ---- corrupt pickles -----------------------------------------------------------------------
def test_every_truncation_is_a_checkpoint_error(tmp_path):
    data = open(fixture("adam.pdopt"), "rb").read()
    for n in range(3, len(data)):
        with pytest.raises(CheckpointError):
            oar.load(io.BytesIO(data[:n]))
    path = tmp_path / "cut.pdopt"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        oar.load(path)


def test_corrupted_bytes_load_or_raise_a_checkpoint_error():
    # a bounded fuzz run of the restricted unpickler: flipped and overwritten bytes
    data = bytearray(open(fixture("nested.pdparams"), "rb").read())
    rng = np.random.default_rng(0)
    for _ in range(400):
        bad = bytearray(data)
        for i in rng.integers(2, len(bad), size=int(rng.integers(1, 4))):
            bad[i] = int(rng.integers(0, 256))
        try:
            oar.load(io.BytesIO(bytes(bad)))
        except CheckpointError:
            pass


def test_a_length_field_larger_than_the_file_allocates_nothing(tmp_path):
    # BINBYTES8 claiming 2**60 bytes: refused from what the stream holds
    data = b"\x80\x04\x8e" + (2**60).to_bytes(8, "little") + b"abc"
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        oar.load(io.BytesIO(data))
    path = tmp_path / "big.pdparams"
    path.write_bytes(data)
    with pytest.raises(CheckpointError):
        oar.load(path)


# ---- oar -> Paddle's format ----------------------------------------------------------------
def test_round_trip_through_paddles_format(tmp_path):
    layer = oar.nn.Linear(3, 2)
    path = tmp_path / "m.pdparams"
    oar.save(layer.state_dict(), path, format="paddle")
    with open(path, "rb") as f:  # what paddle.load unpickles: arrays and the name table
        raw = pickle.load(f)
    assert isinstance(raw["weight"], np.ndarray)
    assert raw["StructuredToParameterName@@"] == {"weight": layer.weight.name,
                                                  "bias": layer.bias.name}
    back = oar.nn.Linear(3, 2)
    back.set_state_dict(oar.load(path))
    x = oar.randn([4, 3])
    np.testing.assert_array_equal(back(x).numpy(), layer(x).numpy())


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_round_trip_of_nested_objects(tmp_path, protocol):
    obj = {"model": {"w": oar.to_tensor([1.0, 2.0])}, "epoch": 4,
           "hist": [oar.to_tensor([3], dtype="int64"), "x"], "pair": (1.5, None)}
    path = tmp_path / "n.pdparams"
    oar.save(obj, path, protocol=protocol, format="paddle")
    with open(path, "rb") as f:
        raw = pickle.load(f)
    assert isinstance(raw["model"]["w"], tuple) and raw["model"]["w"][1].tolist() == [1.0, 2.0]
    got = oar.load(path)
    assert got["model"]["w"].numpy().tolist() == [1.0, 2.0] and got["epoch"] == 4
    assert got["hist"][0].dtype == oar.int64 and got["hist"][1] == "x"
    assert got["pair"] == (1.5, None)


def test_bfloat16_is_written_as_paddles_uint16_bits(tmp_path):
    t = oar.to_tensor([1.0, -2.0]).astype("bfloat16")
    path = tmp_path / "b.pdparams"
    oar.save({"w": t}, path, format="paddle")
    with open(path, "rb") as f:
        assert pickle.load(f)["w"].tolist() == [0x3F80, 0xC000]
    assert oar.load(path)["w"].dtype == oar.bfloat16


def test_saving_in_paddles_format_checks_its_arguments(tmp_path):
    with pytest.raises(ValueError, match="'protocol' must be 2, 3 or 4"):
        oar.save({"w": oar.ones([1])}, tmp_path / "a", protocol=5, format="paddle")
    with pytest.raises(ValueError, match="'format' must be 'safetensors' or 'paddle'"):
        oar.save({"w": oar.ones([1])}, tmp_path / "a", format="pickle")
    with pytest.raises(TypeError, match="cannot save a Evil"):
        oar.save({"w": Evil(print)}, tmp_path / "a", format="paddle")
    assert not os.listdir(tmp_path)  # nothing half-written


def test_a_huge_memo_index_allocates_nothing():
    # LONG_BINPUT 2**31-1: the C unpickler sizes its memo array by it (16 GiB); the
    # restricted one keeps a dict
    assert oar.load(io.BytesIO(b"\x80\x04Nr\xff\xff\xff\x7f.")) is None


def test_build_applies_only_to_data():
    # BUILD (set state) on the class numpy.ndarray itself
    with pytest.raises(UnsafeCheckpointError, match="BUILD"):
        oar.load(io.BytesIO(b"\x80\x02cnumpy\nndarray\n}b."))


# ---- paddle.jit.save's weights (.pdiparams) -----------------------------------------------
def test_jit_saved_weights_load_by_paddles_names_and_give_paddles_output():
    params = oar.load(fixture("mlp"))  # the prefix, as paddle.load takes it
    names = EXPECTED["mlp"]["names"]  # structured name -> Paddle's variable name
    assert sorted(params) == sorted(names.values())
    assert all(params[n].name == n for n in params)
    mlp = oar.nn.Sequential(oar.nn.Linear(4, 3), oar.nn.ReLU(), oar.nn.Linear(3, 2))
    mlp.set_state_dict({k: params[v] for k, v in names.items()})
    y = mlp(oar.to_tensor(EXPECTED["x"])).numpy()
    np.testing.assert_allclose(y, EXPECTED["mlp"]["y"], rtol=1e-6, atol=1e-6)
    arrays = oar.load(fixture("mlp.pdiparams"), return_numpy=True)
    assert all(isinstance(a, np.ndarray) for a in arrays.values())


def test_jit_saved_weights_without_their_program_are_a_list(tmp_path):
    data = open(fixture("mlp.pdiparams"), "rb").read()
    (tmp_path / "w.pdiparams").write_bytes(data)
    got = oar.load(tmp_path / "w.pdiparams")
    assert [list(t.shape) for t in got] == [[3], [4, 3], [2], [3, 2]]  # sorted by name


def test_corrupt_jit_weights_are_a_checkpoint_error(tmp_path):
    data = open(fixture("mlp.pdiparams"), "rb").read()
    path = tmp_path / "w.pdiparams"
    for n in list(range(1, 36)) + [len(data) - 1]:  # 36: the first tensor ends
        path.write_bytes(data[:n])
        with pytest.raises(CheckpointError, match="not a valid Paddle parameter file"):
            oar.load(path)
    # a description claiming 2**40 elements: refused from the file's size, no allocation
    head = (b"\x00" * 16 + (9).to_bytes(4, "little")
            + b"\x08\x05\x10\x80\x80\x80\x80\x80\x20" + b"\x00" * 8)
    path.write_bytes(head)
    with pytest.raises(CheckpointError, match="needs"):
        oar.load(path)


def test_a_bytearray_length_larger_than_the_file_allocates_nothing():
    # BYTEARRAY8 claiming 2.2 GB in a 16-byte file (found by tests/fuzz/atheris_checkpoint.py)
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        oar.load(io.BytesIO(b"\x80\x04\x96\xdd\x03\x03\x83\x00\x00\x00\x00g\x00}\x94"))


def test_numpy_states_are_checked_before_numpy_applies_them():
    # numpy applies a dtype's state unchecked: a fuzzed one crashed the process
    # (tests/fuzz/atheris_checkpoint.py); only the plain form Paddle writes is read
    bad_dtype = dumps({"d": Stand("x", None)},
                      reduce=lambda o: (np.dtype, ("f4", False, True),
                                        (3, "<", None, None, None, 8, 4, 0)))
    with pytest.raises(CheckpointError, match="dtype state"):
        oar.load(io.BytesIO(bad_dtype))
    reconstruct = np.ndarray.__reduce__(np.empty(0))[0]
    bad_array = dumps({"a": Stand("x", None)},
                      reduce=lambda o: (reconstruct, (np.ndarray, (0,), b"b"),
                                        (1, (-2,), np.dtype("f4"), False, b"")))
    with pytest.raises(CheckpointError, match="array state"):
        oar.load(io.BytesIO(bad_array))
    with pytest.raises(UnsafeCheckpointError, match="numpy.dtype"):
        oar.load(io.BytesIO(dumps({"d": Stand("x", None)},
                                  reduce=lambda o: (np.dtype, ("f4", "i8", True)))))

