"""oar.amp.debugging: the tensor checker's modes and reports, check_numerics,
check_layer_numerics, operator statistics and compare_accuracy."""
import csv
import glob

import numpy as np
import pytest

import oar

D = oar.amp.debugging


@pytest.fixture(autouse=True)
def _checker_off():
    yield
    D.disable_tensor_checker()
    assert oar.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": False}


def _sqrt_inf():
    """sqrt at 0: a finite forward, an Inf in the backward (0.5 / sqrt(0))."""
    x = oar.to_tensor([1.0, 0.0, 4.0], stop_gradient=False)
    oar.autograd.backward(oar.sqrt(x), retain_graph=True)
    return x


def test_check_nan_inf_mode_logs_and_continues(tmp_path, capsys):
    cfg = D.TensorCheckerConfig(enable=True, debug_mode=D.DebugMode.CHECK_NAN_INF,
                                output_dir=str(tmp_path))
    assert "seed  123" in capsys.readouterr().out
    D.enable_tensor_checker(cfg)
    y = oar.log(oar.to_tensor([-1.0, 1.0]))  # a NaN forward
    x = _sqrt_inf()
    D.disable_tensor_checker()
    assert np.isnan(y.numpy()[0]) and np.isinf(x.grad.numpy()[1])
    lines = [l for f in glob.glob(str(tmp_path / "worker_*.log")) for l in open(f)]
    # the forward log, then the backward: the divide its formula runs, and the grad node
    assert len(lines) == 3 and all("[PRECISION] [ERROR]" in l for l in lines)
    assert "op=log," in lines[0] and "num_nan=1" in lines[0] and "dtype=fp32" in lines[0]
    assert "op=divide," in lines[1]
    assert "(the backward of sqrt)" in lines[2] and "num_inf=1" in lines[2]


def test_abort_mode_raises_at_the_first_inf():
    D.enable_tensor_checker(D.TensorCheckerConfig(enable=True))
    with pytest.raises(RuntimeError, match="Inf"):
        _sqrt_inf()


def test_check_all_reports_every_tensor_and_op_lists(tmp_path):
    cfg = D.TensorCheckerConfig(True, D.DebugMode.CHECK_ALL, output_dir=str(tmp_path),
                                skipped_op_list=["exp"])
    D.enable_tensor_checker(cfg)
    a = oar.to_tensor([1.0, 2.0])
    (a * a).exp().sum()
    D.disable_tensor_checker()
    text = "".join(open(f).read() for f in glob.glob(str(tmp_path / "*.log")))
    assert "op=multiply" in text and "op=sum" in text and "op=exp" not in text
    assert "[PRECISION] [INFO]" in text


def test_overflow_mode_reports_values_beyond_float16(tmp_path):
    D.enable_tensor_checker(D.TensorCheckerConfig(
        True, D.DebugMode.CHECK_ALL_FOR_OVERFLOW, output_dir=str(tmp_path)))
    oar.to_tensor([1.0, 2.0]) * 1.0
    oar.to_tensor([1.0, 2.0]) * 1e5
    D.disable_tensor_checker()
    text = "".join(open(f).read() for f in glob.glob(str(tmp_path / "*.log")))
    assert text.count("[PRECISION]") == 1 and "max=2.000000e+05" in text


def test_debug_step_window():
    D.TensorCheckerConfig.current_step_id = 0
    cfg = D.TensorCheckerConfig(True, debug_step=[1, 2])
    D.enable_tensor_checker(cfg)  # step 0: outside
    assert oar.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is False
    cfg2 = D.TensorCheckerConfig(True, debug_step=[0, 1])
    D.enable_tensor_checker(cfg2)  # step 0 for cfg2: inside
    assert oar.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is True
    with pytest.raises(ValueError, match="debug_step"):
        D.TensorCheckerConfig(True, debug_step=[3, 1])


def test_check_numerics(capsys):
    x = oar.pow(oar.to_tensor([1.0, 0.0, 3.0]), oar.to_tensor([0.2, 0.0, 0.5]))
    stats, values = D.check_numerics(x, "pow", "res")
    assert stats.numpy().tolist() == [0, 0, 0] and stats.dtype == oar.int64
    np.testing.assert_allclose(values.numpy(), [3 ** 0.5, 1.0, (1 + 1 + 3 ** 0.5) / 3],
                               rtol=1e-6)
    bad = oar.to_tensor([np.nan, np.inf, 0.0, -2.0])
    with pytest.raises(RuntimeError, match=r"num_nan=1, num_inf=1.*op=div.*tensor=q"):
        D.check_numerics(bad, "div", "q")
    stats, values = D.check_numerics(bad, "div", "q", D.DebugMode.CHECK_NAN_INF)
    assert stats.numpy().tolist() == [1, 1, 1]
    assert values.numpy()[0] == np.inf and values.numpy()[1] == -2.0
    assert "[PRECISION] [ERROR] in [device=cpu, op=div, tensor=q" in capsys.readouterr().out
    with pytest.raises(TypeError, match="floating"):
        D.check_numerics(oar.to_tensor([1, 2]), "x", "y")


class _Layer(oar.nn.Layer):
    def __init__(self, bad_forward=False):
        super().__init__()
        self.w = self.create_parameter([2, 3])
        self.bad_forward = bad_forward

    @D.check_layer_numerics
    def forward(self, x):
        if self.bad_forward:
            return 1 / x @ self.w
        return oar.sqrt(x) @ self.w


def test_check_layer_numerics_forward_and_backward():
    with pytest.raises(RuntimeError, match="divide|Inf"):
        _Layer(bad_forward=True)(oar.to_tensor([[0.0, 1.0]]))
    assert oar.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is False
    out = _Layer()(oar.to_tensor([[0.0, 1.0]]))  # forward fine: sqrt(0) = 0
    assert oar.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is False
    with pytest.raises(RuntimeError, match="Inf"):  # d sqrt / dx at 0 is inf
        out.sum().backward()
    D.disable_tensor_checker()
    ok = _Layer()(oar.to_tensor([[4.0, 1.0]]))
    ok.sum().backward()  # healthy
    assert oar.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is False


def test_operator_stats(capsys):
    conv = oar.nn.Conv2D(3, 2, 3)
    x = oar.rand([2, 3, 8, 8])
    with D.collect_operator_stats():
        conv(x)
        oar.to_tensor([1, 2]) + 1
        x.astype("bfloat16") * 2
    out = capsys.readouterr().out
    rows = {l.split("|")[0].strip(): [c.strip() for c in l.split("|")[1:]]
            for l in out.splitlines() if l.startswith("  ")}
    assert rows["conv"] == ["0", "0", "1", "0"]  # oar's op names: conv, add, reshape
    assert rows["scale"] == ["0", "1", "0", "1"]  # bfloat16 x * 2, and int64 + 1
    assert "op count:" in out and "Other Calls" in out
    D.disable_operator_stats_collection()  # not collecting: prints nothing
    assert capsys.readouterr().out == ""


def test_compare_accuracy(tmp_path):
    def run(dtype, d):
        D.enable_tensor_checker(D.TensorCheckerConfig(True, D.DebugMode.CHECK_ALL,
                                                      output_dir=str(d)))
        a = oar.to_tensor([1.0, 2.0, 3.0, 1000.0]).astype(dtype)
        ((a * a) - a).exp()
        D.disable_tensor_checker()

    run("float32", tmp_path / "fp32")
    run("bfloat16", tmp_path / "bf16")
    out = tmp_path / "report.csv"
    n = D.compare_accuracy(str(tmp_path / "fp32"), str(tmp_path / "bf16"), str(out))
    rows = list(csv.DictReader(open(out)))
    assert n == len(rows) >= 3
    ops = [r["op"] for r in rows]
    assert "multiply" in ops and "exp" in ops
    mult = rows[ops.index("multiply")]
    assert mult["dtype_a"] == "fp32" and mult["dtype_b"] == "bf16"
    assert float(mult["max_b/max_a"]) == pytest.approx(1.0, rel=1e-2)
    exp = rows[ops.index("exp")]
    assert exp["abnormal"] == "True"  # exp(999000) overflows in both
    with pytest.raises(ValueError, match="directory"):
        D.compare_accuracy(str(tmp_path / "nope"), str(tmp_path / "bf16"), str(out))
