"""oar.vision.models: forward shapes on tiny inputs, and state_dict names and shapes equal
to Paddle's (tests/python/data/vision_model_keys.json: the (name, *shape) list of Paddle
3.3.1's models, extracted once with the constructor call that is its key)."""
import json
import pathlib

import numpy as np
import pytest

import oar
from oar.vision import models as M

KEYS = json.loads((pathlib.Path(__file__).parent / "data" / "vision_model_keys.json").read_text())


def _keys(model):
    return [[name] + list(t.shape) for name, t in model.state_dict().items()]


@pytest.mark.parametrize("call", sorted(k for k in KEYS if not k.startswith("googlenet")))
def test_state_dict_names_and_shapes_are_paddles(call):
    model = eval("M." + call)  # noqa: S307 - the calls are this file's own data
    assert _keys(model) == KEYS[call]


@pytest.mark.parametrize("build,size,classes", [
    (lambda: M.SqueezeNet("1.0", num_classes=7), 64, 7),
    (lambda: M.MobileNetV1(scale=0.25, num_classes=7), 32, 7),
    (lambda: M.MobileNetV3Large(scale=0.35, num_classes=7), 32, 7),
    (lambda: M.ShuffleNetV2(scale=0.33, act="swish", num_classes=7), 32, 7),
    (lambda: M.ResNet(M.resnet.BottleneckBlock, 50, width=4, groups=2, num_classes=7), 16, 7),
    (lambda: M.VGG(M.vgg.make_layers([8, "M", 16, "M"]), num_classes=0), 32, None),
])
def test_forward_shapes(build, size, classes):
    oar.seed(0)
    m = build()
    m.eval()
    y = m(oar.rand([2, 3, size, size]))
    assert (y.shape == [2, classes]) if classes else (y.shape == [2, 16, 7, 7])
    assert np.isfinite(y.numpy()).all()


def test_googlenet_names_and_three_heads():
    m = M.googlenet(num_classes=10)
    assert _keys(m) == KEYS["googlenet(num_classes=10)"]
    m.eval()
    with oar.no_grad():
        out, aux1, aux2 = m(oar.rand([1, 3, 208, 208]))
    assert out.shape == aux1.shape == aux2.shape == [1, 10]


def test_without_pool_or_classifier():
    m = M.MobileNetV3Small(scale=0.5, num_classes=0, with_pool=False)
    assert m(oar.rand([1, 3, 32, 32])).shape == [1, 288, 1, 1]
    assert M.SqueezeNet("1.1", num_classes=0, with_pool=False)(
        oar.rand([1, 3, 64, 64])).shape == [1, 512, 3, 3]


@pytest.mark.parametrize("fn", [M.alexnet, M.vgg11, M.densenet121, M.googlenet, M.inception_v3,
                                M.mobilenet_v1, M.mobilenet_v3_small, M.shufflenet_v2_x1_0,
                                M.squeezenet1_0, M.resnext50_32x4d, M.wide_resnet50_2])
def test_pretrained_is_a_clear_error(fn):
    with pytest.raises(ValueError, match="never fetches.*set_state_dict"):
        fn(pretrained=True)


def test_bad_arguments():
    with pytest.raises(ValueError, match="version"):
        M.SqueezeNet("2.0")
    with pytest.raises(ValueError, match="layers"):
        M.DenseNet(layers=100)
    with pytest.raises(ValueError, match="scale"):
        M.ShuffleNetV2(scale=0.7)
    with pytest.raises(ValueError, match="act"):
        M.ShuffleNetV2(act="gelu")
    with pytest.raises(ValueError, match="cfg"):
        M.vgg.make_layers([64, "X"])


def test_module_paths_match_paddle():
    from oar.vision.models.resnet import BasicBlock, BottleneckBlock
    from oar.vision.models.vgg import make_layers
    assert BottleneckBlock.expansion == 4 and BasicBlock.expansion == 1 and callable(make_layers)
    from oar.vision.ops import ConvNormActivation
    block = ConvNormActivation(3, 4, 3)
    assert [k for k in block.state_dict()] == ["0.weight", "1.weight", "1.bias", "1._mean",
                                               "1._variance"]
