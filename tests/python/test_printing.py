"""How tensors, dtypes and shapes print (python/oar/tensor/to_string.py, framework/size.py): the text
Paddle 3.3.1 prints for the same tensors, and oar.set_printoptions."""
import pickle
import sys

import numpy as np
import pytest

import oar

HEAD = "Tensor(shape={}, dtype={}, place=Place(cpu), stop_gradient=True,\n       "

# (tensor, dtype name, shape, the data part Paddle 3.3.1 prints for it)
CASES = {
    "float": (lambda: oar.to_tensor([0.4, 1.0, 2.0]), "float32", [3],
              "[0.40000001, 1.        , 2.        ]"),
    "signed_2d": (lambda: oar.to_tensor([[1.5, -2.0], [0.25, 3.0]]), "float32", [2, 2],
                  "[[1.50000000, -2.       ],\n        [0.25000000,  3.       ]]"),
    "int_padding": (lambda: oar.to_tensor([-1, 5, 100]), "int64", [3], "[-1 ,  5 , 100]"),
    # the widest element gets no sign space even when another one is negative
    "int_same_width": (lambda: oar.to_tensor([-1, 10]), "int64", [2], "[-1, 10]"),
    "bool": (lambda: oar.to_tensor([[True], [False]]), "bool", [2, 1],
             "[[True ],\n        [False]]"),
    "nan_inf": (lambda: oar.to_tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
                "float32", [4], "[ nan      ,  inf.     , -inf.     , 1.50000000]"),
    "negative_zero": (lambda: oar.to_tensor([-0.0, 1.0]), "float32", [2], "[-0., 1. ]"),
    "0d_whole": (lambda: oar.to_tensor(3.0), "float32", [], "3."),
    "0d": (lambda: oar.to_tensor(-3.25), "float32", [], "-3.25000000"),
    "empty_rows": (lambda: oar.zeros([2, 0]), "float32", [2, 0], "[[],\n        []]"),
    "empty": (lambda: oar.zeros([0, 3]), "float32", [0, 3], "[]"),
    "empty_3d": (lambda: oar.zeros([2, 0, 3]), "float32", [2, 0, 3], "[[],\n\n        []]"),
    "wrapped": (lambda: oar.arange(30), "int64", [30],
                "[0 , 1 , 2 , 3 , 4 , 5 , 6 , 7 , 8 , 9 , 10, 11, 12, 13, 14, 15, 16, 17,\n"
                "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]"),
    "summarised_1d": (lambda: oar.arange(1500), "int64", [1500],
                      "[0   , 1   , 2   , ..., 1497, 1498, 1499]"),
    "summarised_2d": (lambda: oar.arange(2000).reshape([40, 50]), "int64", [40, 50],
                      "[[0   , 1   , 2   , ..., 47  , 48  , 49  ],\n"
                      "        [50  , 51  , 52  , ..., 97  , 98  , 99  ],\n"
                      "        [100 , 101 , 102 , ..., 147 , 148 , 149 ],\n"
                      "        ...,\n"
                      "        [1850, 1851, 1852, ..., 1897, 1898, 1899],\n"
                      "        [1900, 1901, 1902, ..., 1947, 1948, 1949],\n"
                      "        [1950, 1951, 1952, ..., 1997, 1998, 1999]]"),
    "rank4": (lambda: oar.ones([2, 2, 1, 2], dtype="int32"), "int32", [2, 2, 1, 2],
              "[[[[1, 1]],\n\n         [[1, 1]]],\n\n\n        [[[1, 1]],\n\n         [[1, 1]]]]"),
    "complex": (lambda: oar.to_tensor([1 + 2j, -3 - 4j]), "complex64", [2],
                "[ (1.00000000+2.00000000j), (-3.00000000-4.00000000j)]"),
    "bfloat16": (lambda: oar.to_tensor([1.5, 2.7], dtype="bfloat16"), "bfloat16", [2],
                 "[1.50000000, 2.70312500]"),
    "float16": (lambda: oar.to_tensor([0.1, 2.0], dtype="float16"), "float16", [2],
                "[0.09997559, 2.        ]"),
    "huge_and_tiny": (lambda: oar.to_tensor([1e20, 1e-20]), "float32", [2],
                      "[100000002004087734272., 0.00000000            ]"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_repr_is_paddles(name):
    make, dtype, shape, data = CASES[name]
    t = make()
    want = HEAD.format(shape, dtype) + data + ")"
    assert repr(t) == want
    assert str(t) == want


def test_empty_tensors_with_huge_dims_print_summarised_rows():
    # Not Paddle's text: Paddle prints every row of an empty tensor, which for 2**40 rows is a
    # hang, and numpy cannot even hold the second shape. The rows are summarised like elements.
    t = oar.zeros([2 ** 40, 0])
    rows = "[[],\n        [],\n        [],\n        ...,\n        [],\n        [],\n        []]"
    assert repr(t) == HEAD.format([2 ** 40, 0], "float32") + rows + ")"
    t = oar.diag_embed(oar.zeros([0, 4], dtype="float16"), 2 ** 31, 1, 0)
    assert repr(t).startswith(HEAD.format([2 ** 31 + 4, 2 ** 31 + 4, 0], "float16") + "[[[],")
    assert repr(t).count("...") == 7  # one for the outer rows, one inside each of the 6 shown


def test_tolist_of_empty_tensors_is_nested_empty_lists_as_in_torch():
    # through numpy, [0, 2**62] raised numpy's "array is too big"
    import torch
    for shape in [[0], [2, 0], [2, 3, 0, 4], [0, 2 ** 62]]:
        want = torch.zeros(shape).tolist() if shape != [0, 2 ** 62] else []
        assert oar.zeros(shape).tolist() == want
    # one list per row before the 0: [2**62, 0] built 2**62 of them (a hang)
    with pytest.raises(MemoryError, match=r"tolist\(\): 4611686018427387904 lists"):
        oar.zeros([2 ** 62, 0]).tolist()


def test_stop_gradient_and_parameter():
    x = oar.to_tensor([1.0], stop_gradient=False)
    assert repr(x).startswith("Tensor(shape=[1], dtype=float32, place=Place(cpu), "
                              "stop_gradient=False,\n")
    p = oar.create_parameter([1], "float32", default_initializer=oar.nn.initializer.Constant(2.0))
    assert repr(p) == ("Parameter containing:\nTensor(shape=[1], dtype=float32, place=Place(cpu), "
                       "stop_gradient=False,\n       [2.])")


@pytest.fixture
def restore_printoptions():
    yield
    oar.set_printoptions(precision=8, threshold=1000, edgeitems=3, sci_mode=False, linewidth=80)


def test_set_printoptions(restore_printoptions):
    oar.set_printoptions(precision=3, sci_mode=True)
    assert repr(oar.to_tensor([1.5, 0.001, -100.0])).endswith(
        "[ 1.500e+00,  1.000e-03, -1.000e+02])")
    oar.set_printoptions(precision=2, sci_mode=False, threshold=5, edgeitems=1, linewidth=30)
    x = oar.arange(12, dtype="float32").reshape([3, 4]) / 3
    assert repr(x).endswith("[[0.  , ..., 1.  ],\n        ...,\n        [2.67, ..., 3.67]])")
    assert repr(oar.arange(7, dtype="float32") / 3).endswith("[0., ..., 2.])")
    oar.set_printoptions(threshold=1000)  # the others stay
    assert repr(oar.to_tensor([1 / 3])).endswith("[0.33])")


def test_set_printoptions_wraps_by_linewidth(restore_printoptions):
    oar.set_printoptions(linewidth=20)
    # (20 - 7 indent) // (1 digit + ", ") = 4 elements a line
    assert repr(oar.arange(10)).endswith("[0, 1, 2, 3,\n        4, 5, 6, 7,\n        8, 9])")


@pytest.mark.parametrize("kwargs, err, match", [
    ({"precision": 2.5}, TypeError, "'precision' must be an int"),
    ({"threshold": True}, TypeError, "'threshold' must be an int"),
    ({"edgeitems": -1}, ValueError, "'edgeitems' must be >= 0"),
    ({"linewidth": 0}, ValueError, "'linewidth' must be >= 1"),
    ({"sci_mode": 1}, TypeError, "'sci_mode' must be a bool"),
])
def test_set_printoptions_rejects_bad_values(kwargs, err, match, restore_printoptions):
    with pytest.raises(err, match=match):
        oar.set_printoptions(**kwargs)
    assert repr(oar.to_tensor([0.5])).endswith("[0.50000000])")  # nothing changed


def test_format_of_a_0d_tensor_is_its_value():
    assert "{}".format(oar.to_tensor(500.0)) == "500.0"
    assert f"{oar.to_tensor(2):>3}" == "  2"
    assert "{}".format(oar.to_tensor([1.0])).startswith("Tensor(shape=[1]")


def test_item_with_an_index():
    x = oar.to_tensor([[1.1, 2.2, 3.3]])
    assert x.item(2) == x.item(0, 2) == np.float32(3.3).item()
    assert oar.to_tensor(1 + 1j).item() == 1 + 1j
    with pytest.raises(IndexError, match=r"Tensor.item\(\).*shape \[1, 3\]"):
        x.item(3)


def test_numel_is_a_0d_int64_tensor():
    n = oar.numel(oar.ones([4, 5, 7], dtype="int32"))
    assert n.shape == [] and n.dtype == oar.int64 and int(n) == 140
    assert int(oar.ones([2, 3]).numel()) == 6 and oar.ones([2, 3]).size == 6


# ---- Size ------------------------------------------------------------------------------
def test_shape_is_a_size():
    s = oar.ones([2, 3]).shape
    assert type(s) is oar.Size and isinstance(s, list)
    assert repr(s) == str(s) == "oar.Size([2, 3])"
    assert f"{s}" == "{}".format(s) == "[2, 3]"  # as in oar's error messages
    assert s == [2, 3] and s == (2, 3) and (2, 3) == s and s != [3, 2] and s != (2,)
    assert s[0] == 2 and type(s[1:]) is oar.Size and s[1:] == [3]
    assert type(s + [4]) is oar.Size and s + [4] == [2, 3, 4]
    assert type([1] + s) is oar.Size and [1] + s == [1, 2, 3]
    assert type(s * 2) is oar.Size and 2 * s == [2, 3, 2, 3]
    assert s.numel() == 6 and oar.to_tensor(1.0).shape == oar.Size() and oar.Size().numel() == 1
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is oar.Size
    with pytest.raises(TypeError):
        hash(s)
    assert oar.zeros(s).shape == [2, 3]  # a Size is a shape argument like a list


def test_size_constructor():
    assert oar.Size([2, np.int64(3), oar.to_tensor(4)]) == [2, 3, 4]
    with pytest.raises(TypeError, match=r"Size\(\) takes an iterable of 'int' \(item 1 is 'float'\)"):
        oar.Size([2, 2.5])


def test_names_follow_the_import_name(monkeypatch):
    # A Paddle program run on oar through `import paddle` sees Paddle's spellings.
    assert str(oar.float32) == "oar.float32"
    monkeypatch.setitem(sys.modules, "paddle", oar)
    assert str(oar.float32) == "paddle.float32" and repr(oar.int64) == "paddle.int64"
    assert str(oar.ones([2]).shape) == "paddle.Size([2])"
    monkeypatch.setitem(sys.modules, "paddle", object())  # a real Paddle, say: not ours
    assert str(oar.float32) == "oar.float32"


def test_a_size_plus_non_ints_is_a_plain_list():
    s = oar.ones([2, 3]).shape
    r = s[:1] + ["k"]
    assert type(r) is list and r == [2, "k"]
    assert type(["k"] + s) is list


def test_sparse_values_print_as_dense_elements_do():
    # Paddle prints a sparse tensor's parts with the dense element format (8 decimals of
    # the float64 value, nan padded like any element, booleans left-aligned).
    x = oar.to_tensor([[0.0, 1.2], [-0.5, 0.0]])
    assert repr(x.to_sparse_coo(2)).splitlines()[1:] == [
        "       indices=[[0, 1],",
        "                [1, 0]],",
        "       values=[ 1.20000005, -0.50000000])"]
    assert repr(x.to_sparse_csr()).splitlines()[-1] == "       values=[ 1.20000005, -0.50000000])"
    y = oar.to_tensor([float("nan"), 1.57079637, 0.0]).to_sparse_coo(1)
    assert repr(y).splitlines()[-1] == "       values=[nan       , 1.57079637])"
    b = oar.to_tensor([True, False, True, True]).to_sparse_coo(1)
    assert repr(b).splitlines()[-1] == "       values=[True, True, True])"
    assert repr(oar.sparse.isnan(oar.to_tensor([0.5, float("nan"), 2.0, 3.0]).to_sparse_coo(1))) \
        .splitlines()[-1] == "       values=[False, True , False, False])"
