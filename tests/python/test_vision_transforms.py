"""oar.vision.transforms: the functional API on PIL images, numpy arrays and Tensors
(against numpy, PIL and hand-derived values), the transform classes, keys, and errors."""
import colorsys

import numpy as np
import pytest
import torch
from PIL import Image

import oar
import oar.vision.transforms as T
import oar.vision.transforms.functional as F

RNG = np.random.default_rng(7)
RGB = RNG.integers(0, 256, (6, 8, 3), dtype=np.uint8)


def _pil(a=RGB):
    return Image.fromarray(a)


def test_type_checks_and_to_tensor():
    assert F._is_pil_image(_pil()) and F._is_numpy_image(RGB) and F._is_tensor_image(oar.ones([1]))
    assert not F._is_numpy_image(np.zeros(3))
    t = F.to_tensor(_pil())
    assert t.shape == [3, 6, 8] and t.dtype == oar.float32
    np.testing.assert_allclose(t.numpy(), RGB.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert F.to_tensor(RGB, "HWC").shape == [6, 8, 3]
    assert F.to_tensor(RGB[..., 0].astype(np.float64)).dtype == oar.float64  # kept, not scaled
    assert F.to_tensor(Image.fromarray(RGB[..., 0].astype(np.int32), "I")).dtype == oar.int32
    with pytest.raises(TypeError, match="PIL image, a Tensor"):
        F.hflip([1, 2])


@pytest.mark.parametrize("kind", ["pil", "numpy", "tensor"])
def test_flips_crops_pad_agree_across_kinds(kind):
    conv = {"pil": (_pil, np.asarray), "numpy": (lambda a: a, np.asarray),
            "tensor": (lambda a: oar.to_tensor(a.transpose(2, 0, 1).copy()),
                       lambda t: t.numpy().transpose(1, 2, 0))}[kind]
    to, back = conv
    np.testing.assert_array_equal(back(F.hflip(to(RGB))), RGB[:, ::-1])
    np.testing.assert_array_equal(back(F.vflip(to(RGB))), RGB[::-1])
    np.testing.assert_array_equal(back(F.crop(to(RGB), 1, 2, 3, 4)), RGB[1:4, 2:6])
    np.testing.assert_array_equal(back(F.center_crop(to(RGB), (2, 4))), RGB[2:4, 2:6])
    for mode in ("constant", "edge", "reflect", "symmetric"):
        got = back(F.pad(to(RGB), (1, 2), fill=9, padding_mode=mode))
        want = np.pad(RGB, ((2, 2), (1, 1), (0, 0)), mode=mode,
                      **({"constant_values": 9} if mode == "constant" else {}))
        np.testing.assert_array_equal(got, want)
    got = back(F.pad(to(RGB), (1, 0, 2, 3), fill=(1, 2, 3)))
    assert got.shape == (9, 11, 3) and list(got[0, 0]) == [1, 2, 3]


def test_resize():
    assert F.resize(_pil(), 3).size == (4, 3)  # shorter side 3, ratio kept
    assert F.resize(RGB, (5, 7)).shape == (5, 7, 3)
    t = oar.to_tensor(RGB.transpose(2, 0, 1).astype(np.float32))
    want = torch.nn.functional.interpolate(torch.tensor(RGB.transpose(2, 0, 1)[None] * 1.0),
                                           size=(4, 5), mode="bilinear", align_corners=False)
    np.testing.assert_allclose(F.resize(t, (4, 5)).numpy(), want[0].numpy(), rtol=1e-5)
    flt = F.resize(RGB.astype(np.float32), (12, 16), "nearest")
    np.testing.assert_array_equal(flt, RGB.repeat(2, 0).repeat(2, 1).astype(np.float32))


def test_geometry_hand_derived():
    sq = RNG.integers(0, 256, (7, 7, 3), dtype=np.uint8)
    t = oar.to_tensor(sq.transpose(2, 0, 1).copy())
    # a quarter turn counter-clockwise, on every kind of image
    np.testing.assert_array_equal(np.asarray(F.rotate(_pil(sq), 90)), np.rot90(sq))
    np.testing.assert_array_equal(F.rotate(sq, 90), np.rot90(sq))
    np.testing.assert_array_equal(F.rotate(t, 90).numpy().transpose(1, 2, 0), np.rot90(sq))
    # a shift by (2, 1): out[y, x] = in[y - 1, x - 2], zeros (fill) where nothing lands
    shifted = F.affine(sq, 0, (2, 1), 1.0, 0)
    np.testing.assert_array_equal(shifted[1:, 2:], sq[:-1, :-2])
    assert (shifted[0] == 0).all() and (shifted[:, :2] == 0).all()
    # PIL and the numpy sampler agree on a general affine map (nearest)
    m = dict(angle=30, translate=(1, -1), scale=0.8, shear=(10, 5))
    agree = np.mean(np.asarray(F.affine(_pil(RGB), **m)) == F.affine(RGB, **m))
    assert agree > 0.9
    # half a pixel right, bilinear: the first column is half covered; numpy blends the
    # covered half with fill (OpenCV), Tensors weight the sample by coverage again (Paddle)
    col = np.full((1, 2, 2), 8.0)
    arr = F.affine(col.transpose(1, 2, 0), 0, (0.5, 0), 1.0, 0, "bilinear", fill=2)
    ten = F.affine(oar.to_tensor(col), 0, (0.5, 0), 1.0, 0, "bilinear", fill=2).numpy()
    np.testing.assert_allclose(arr[:, 0, 0], [8 * 0.5 + 2 * 0.5] * 2)
    np.testing.assert_allclose(ten[0, :, 0], [8 * 0.25 + 2 * 0.5] * 2)
    np.testing.assert_allclose(ten[0, :, 1], [8.0, 8.0])
    # identity perspective, and expand grows a rotated image
    pts = [[0, 0], [7, 0], [7, 5], [0, 5]]
    np.testing.assert_array_equal(F.perspective(RGB, pts, pts), RGB)
    assert F.rotate(RGB, 45, expand=True).shape[:2] == (10, 10)  # ceil(7/sqrt(2)) * 2
    assert F.rotate(_pil(RGB), 45, expand=True).size[0] >= 10


def test_colour():
    t = oar.to_tensor(RGB.transpose(2, 0, 1) / 255.0).astype("float32")
    np.testing.assert_allclose(F.adjust_brightness(t, 0.5).numpy(), t.numpy() * 0.5, rtol=1e-6)
    pil = np.asarray(F.adjust_brightness(_pil(), 0.5)).astype(float)
    assert np.abs(pil - RGB * 0.5).max() <= 1.0
    assert np.abs(F.adjust_brightness(RGB, 0.5).astype(float) - RGB * 0.5).max() <= 1.0
    gray = (RGB.astype(float) @ [0.2989, 0.587, 0.114])
    np.testing.assert_allclose(F.to_grayscale(t, 3).numpy()[2], gray / 255.0, rtol=1e-5)
    np.testing.assert_allclose(F.adjust_saturation(t, 0.0).numpy()[0], gray / 255.0, rtol=1e-5)
    mean = (gray / 255.0).mean()
    np.testing.assert_allclose(F.adjust_contrast(t, 0.0).numpy(), np.full((3, 6, 8), mean),
                               rtol=1e-5)
    assert F.to_grayscale(_pil()).mode == "L" and F.to_grayscale(RGB).shape == (6, 8, 1)
    # hue: a float image against colorsys
    img = RGB.astype(np.float64) / 255.0
    got = F.adjust_hue(img.astype(np.float32), 0.25)
    for y, x in ((0, 0), (3, 5)):
        hh, ss, vv = colorsys.rgb_to_hsv(*img[y, x])
        np.testing.assert_allclose(got[y, x], colorsys.hsv_to_rgb((hh + 0.25) % 1, ss, vv),
                                   atol=1e-5)
    assert np.abs(np.asarray(F.adjust_hue(_pil(), 0.25)).astype(int)
                  - np.asarray(F.adjust_hue(RGB, 0.25)).astype(int)).max() == 0
    with pytest.raises(ValueError, match="hue_factor"):
        F.adjust_hue(RGB, 0.7)
    with pytest.raises(ValueError, match="non-negative"):
        F.adjust_contrast(RGB, -1)


def test_normalize_and_erase():
    n = F.normalize(_pil(), [127.5] * 3, [127.5] * 3, data_format="HWC")
    np.testing.assert_allclose(n, (RGB - 127.5) / 127.5, rtol=1e-6)
    t = oar.to_tensor(RGB.transpose(2, 0, 1).astype(np.float32))
    np.testing.assert_allclose(F.normalize(t, [1, 2, 3], [2, 2, 2]).numpy(),
                               (RGB.transpose(2, 0, 1) - np.array([1, 2, 3])[:, None, None]) / 2)
    e = F.erase(t, 1, 2, 2, 3, oar.zeros([3, 1, 1]))
    assert float(e[:, 1:3, 2:5].abs().sum()) == 0 and float(t[:, 1:3, 2:5].abs().sum()) > 0
    a = F.erase(RGB, 0, 0, 2, 2, 7)
    assert (a[:2, :2] == 7).all() and (RGB[:2, :2] != 7).any()
    with pytest.raises(ValueError, match="std"):
        F.normalize(t, 0.0, 0.0)


def test_transform_classes_shapes_and_seeds():
    img = _pil()
    assert T.Pad(2)(img).size == (12, 10)
    assert T.RandomResizedCrop(4)(img).size == (4, 4)
    assert T.RandomRotation(30)(img).size == (8, 6)
    assert T.Grayscale(3)(img).mode == "RGB"
    assert np.asarray(T.ColorJitter(0.4, 0.4, 0.4, 0.4)(img)).shape == (6, 8, 3)
    t = oar.randn([3, 20, 16])
    assert T.RandomCrop(8)(t).shape == [3, 8, 8]
    assert T.RandomCrop(24, pad_if_needed=True)(t).shape == [3, 24, 24]
    assert T.RandomAffine(30, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=5)(t).shape == t.shape
    assert T.RandomPerspective(1.0, 0.5)(t).shape == t.shape
    oar.seed(3)
    a = T.RandomErasing(prob=1.0, value="random")(t)
    oar.seed(3)
    b = T.RandomErasing(prob=1.0, value="random")(t)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert (a.numpy() != t.numpy()).any()
    for cls in (T.BrightnessTransform, T.ContrastTransform, T.SaturationTransform):
        assert cls(0)(img) is img  # a zero range is the identity
    with pytest.raises(ValueError, match="range"):
        T.HueTransform(0.8)
    with pytest.raises(ValueError, match="prob"):
        T.RandomPerspective(prob=2)
    with pytest.raises(ValueError, match="padding_mode"):
        T.Pad(1, padding_mode="wrap")


def test_keys_route_inputs_to_apply_methods():
    class Flip(T.BaseTransform):
        def _get_params(self, inputs):
            return {"w": F._image_size(inputs[0])[0]}

        def _apply_image(self, image):
            return F.hflip(image)

        def _apply_boxes(self, boxes):
            b = np.asarray(boxes, float).copy()
            b[:, [0, 2]] = self.params["w"] - b[:, [2, 0]]
            return b

    img, boxes = _pil(), np.array([[1, 2, 3, 4]])
    out_img, out_boxes, extra = Flip(keys=("image", "boxes"))((img, boxes, "label"))
    np.testing.assert_array_equal(np.asarray(out_img), RGB[:, ::-1])
    np.testing.assert_array_equal(out_boxes, [[5, 2, 7, 4]])
    assert extra == "label"
    with pytest.raises(NotImplementedError, match="points"):
        Flip(keys=("image", "points"))


def test_image_backend(tmp_path):
    from oar.vision import get_image_backend, image_load, set_image_backend
    path = str(tmp_path / "a.png")
    _pil().save(path)
    assert get_image_backend() == "pil"
    try:
        set_image_backend("cv2")
        np.testing.assert_array_equal(image_load(path), RGB)
        assert image_load(path, backend="tensor").shape == [3, 6, 8]
        assert isinstance(image_load(path, "pil"), Image.Image)
    finally:
        set_image_backend("pil")
    with pytest.raises(ValueError, match="backend"):
        set_image_backend("opencv")
