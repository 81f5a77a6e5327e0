"""oar.vision's MNIST, FashionMNIST, Cifar10, Cifar100, Flowers, VOC2012, DatasetFolder and
ImageFolder on tiny files, archives and trees laid out as Paddle's downloads are. The expected items were derived by
hand from the formats (CIFAR rows are R, G and B planes of 32x32; Flowers' image k is
image_0000k.jpg labelled labels[k - 1]; ...) and agree with what Paddle 3.3.1's own classes
give on the same files, except where a comment says oar departs on purpose. JPEG pixels are
compared with PIL's decoding of the same bytes, which is what both read them with."""
import copy
import gzip
import io
import os
import pickle
import struct
import sys
import tarfile
import zlib

import numpy as np
import pytest
from PIL import Image

import oar
from oar.io import DataLoader, Subset
from oar.vision import transforms as T
from oar.vision.datasets import (FASHION_MNIST_DIR, MNIST, VOC2012, Cifar10, Cifar100,
                                 DatasetFolder, FashionMNIST, Flowers, ImageFolder)


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _add_dir(tar, name):
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    tar.addfile(info)


def _encode(img, fmt, **kw):
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def _decoded(data):
    return np.asarray(Image.open(io.BytesIO(data)))


@pytest.fixture
def pil_backend():
    # Tests that change the global image backend put it back.
    saved = oar.vision.get_image_backend()
    oar.vision.set_image_backend("pil")
    yield
    oar.vision.set_image_backend(saved)


# ---- CIFAR ---------------------------------------------------------------------------------
def _cifar_row(a, b):
    """A 3072-byte CIFAR row: value (a*i + b) % 256 at flat position i."""
    return ((np.arange(3072) * a + b) % 256).astype(np.uint8)


def _batch(rows, labels, label_key, old_numpy=False):
    # The official batches are Python 2 pickles: read with encoding='bytes', keys are bytes.
    batch = {b"batch_label": b"synthetic", b"data": np.stack(rows), label_key: list(labels),
             b"filenames": [b"f%d.png" % i for i in range(len(rows))]}
    if label_key == b"fine_labels":
        batch[b"coarse_labels"] = [lab // 5 for lab in labels]
    data = pickle.dumps(batch, protocol=2)
    if old_numpy:  # name numpy's array builder as numpy 1.x (and the official files) do
        data = data.replace(b"numpy._core.multiarray\n", b"numpy.core.multiarray\n")
        assert b"numpy.core.multiarray\n_reconstruct" in data
    return data


# (a, b) of each image and its label, per batch.
CIFAR10_BATCHES = {"data_batch_1": ([(1, 0), (3, 7), (0, 200)], [3, 1, 4]),
                   "data_batch_2": ([(5, 1), (7, 2)], [1, 5]),
                   "test_batch": ([(11, 3), (2, 9)], [9, 2])}


def _cifar10_archive(tmp_path):
    path = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        _add_dir(tar, "cifar-10-batches-py")
        # data_batch_2 first: the batches are read in sorted name order, not archive order.
        for name in ("data_batch_2", "test_batch", "data_batch_1"):
            rows, labels = CIFAR10_BATCHES[name]
            _add(tar, f"cifar-10-batches-py/{name}",
                 _batch([_cifar_row(*ab) for ab in rows], labels, b"labels", old_numpy=True))
        _add(tar, "cifar-10-batches-py/batches.meta", pickle.dumps({b"label_names": []}, 2))
        _add(tar, "cifar-10-batches-py/readme.html", b"<html></html>")
    return str(path)


def _cifar100_archive(tmp_path):
    path = tmp_path / "cifar-100-python.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        _add(tar, "cifar-100-python/train",
             _batch([_cifar_row(13, 0), _cifar_row(1, 128)], [42, 99], b"fine_labels"))
        _add(tar, "cifar-100-python/test", _batch([_cifar_row(17, 5)], [7], b"fine_labels"))
        _add(tar, "cifar-100-python/meta", pickle.dumps({b"fine_label_names": []}, 2))
    return str(path)


def test_cifar10_items(tmp_path):
    path = _cifar10_archive(tmp_path)
    train = Cifar10(path, mode="train")
    assert len(train) == 5
    want = [(1, 0), (3, 7), (0, 200), (5, 1), (7, 2)]  # batch 1, then batch 2
    for i, ((a, b), lab) in enumerate(zip(want, [3, 1, 4, 1, 5])):
        img, label = train[i]
        assert isinstance(img, Image.Image) and img.mode == "RGB" and img.size == (32, 32)
        assert isinstance(label, np.ndarray) and label.dtype == np.int64
        assert label.shape == () and int(label) == lab  # 0-d, as Paddle gives
        # Row position c*1024 + h*32 + w is pixel (h, w) of channel c.
        np.testing.assert_array_equal(
            np.asarray(img), _cifar_row(a, b).reshape(3, 32, 32).transpose(1, 2, 0))
    px = np.asarray(train[0][0])
    assert px[0, 0].tolist() == [0, 0, 0]         # positions 0, 1024, 2048
    assert px[1, 2].tolist() == [34, 34, 34]      # 34, 1058, 2082, all 34 mod 256
    assert np.asarray(train[1][0])[0, 1].tolist() == [10, 10, 10]  # 3*1+7, 3*1025+7, 3*2049+7
    assert np.asarray(train[2][0]).min() == 200 == np.asarray(train[2][0]).max()
    assert int(train[-1][1]) == 5

    test = Cifar10(path, mode="TEST", backend="cv2")  # mode is case-blind, as in Paddle
    assert len(test) == 2 and [int(test[i][1]) for i in range(2)] == [9, 2]
    img, _ = test[0]
    assert isinstance(img, np.ndarray) and img.dtype == np.float32 and img.shape == (32, 32, 3)
    np.testing.assert_array_equal(img, _cifar_row(11, 3).reshape(3, 32, 32).transpose(1, 2, 0))


def test_cifar_transform_backend_default_and_batching(tmp_path, pil_backend):
    path = _cifar10_archive(tmp_path)
    T = oar.vision.transforms
    ds = Cifar10(path, transform=T.ToTensor())
    x, y = ds[3]
    assert list(x.shape) == [3, 32, 32]
    np.testing.assert_allclose(x.numpy(), _cifar_row(5, 1).reshape(3, 32, 32) / 255.0,
                               rtol=1e-6)
    # With 'cv2' the transform sees the uint8 HWC array; its result is cast to float32.
    ds = Cifar10(path, transform=lambda a: a[:2, :2, 0], backend="cv2")
    assert ds[0][0].dtype == np.float32 and ds[0][0].tolist() == [[0, 1], [32, 33]]
    oar.vision.set_image_backend("cv2")  # backend=None takes the global backend
    assert isinstance(Cifar10(path)[0][0], np.ndarray)
    oar.vision.set_image_backend("pil")
    ds = Cifar10(path, transform=T.ToTensor())
    xb, yb = next(iter(oar.io.DataLoader(ds, batch_size=5)))
    assert list(xb.shape) == [5, 3, 32, 32] and yb.numpy().tolist() == [3, 1, 4, 1, 5]


def test_cifar100_items(tmp_path):
    path = _cifar100_archive(tmp_path)
    train, test = Cifar100(path), Cifar100(path, mode="test", backend="cv2")
    assert len(train) == 2 and len(test) == 1
    assert [int(train[i][1]) for i in range(2)] == [42, 99]  # the fine labels
    np.testing.assert_array_equal(np.asarray(train[1][0]),
                                  _cifar_row(1, 128).reshape(3, 32, 32).transpose(1, 2, 0))
    img, label = test[0]
    assert label.dtype == np.int64 and int(label) == 7 and img.dtype == np.float32
    assert img[0, 1].tolist() == [22, 22, 22]  # 17*1+5, 17*1025+5, 17*2049+5, all 22 mod 256


def test_cifar_errors(tmp_path):
    path = _cifar10_archive(tmp_path)
    with pytest.raises(ValueError, match="downloads nothing"):
        Cifar10()
    with pytest.raises(ValueError, match="cifar-100-python.tar.gz"):
        Cifar100(download=False)
    with pytest.raises(FileNotFoundError, match="no file"):
        Cifar10(str(tmp_path / "missing.tar.gz"))
    with pytest.raises(ValueError, match="'mode' must be 'train' or 'test'"):
        Cifar10(path, mode="valid")
    for backend in ("tensor", "opencv"):
        with pytest.raises(ValueError, match="'backend' must be 'pil' or 'cv2'"):
            Cifar10(path, backend=backend)
    # A CIFAR-10 archive holds no CIFAR-100 "train" member (Paddle gives an empty dataset).
    with pytest.raises(ValueError, match="no train batch"):
        Cifar100(path)


def test_cifar_refuses_pickles_that_build_other_objects(tmp_path):
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    path = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        _add(tar, "cifar-10-batches-py/data_batch_1", pickle.dumps({b"data": Evil()}, 2))
    with pytest.raises(ValueError, match="refusing"):
        Cifar10(str(path))


# ---- Flowers -------------------------------------------------------------------------------
_MI = {np.dtype(np.uint8): (9, 2), np.dtype(np.uint16): (11, 4), np.dtype(np.float64): (6, 9)}


def _mat_element(mtype, data, order):
    if len(data) <= 4:  # the small form: type and size in one word, data in the next
        return struct.pack(order + "I", (len(data) << 16) | mtype) + data.ljust(4, b"\0")
    pad = -len(data) % 8
    return struct.pack(order + "II", mtype, len(data)) + data + b"\0" * pad


def _mat_file(variables, order="<", compress=False):
    """A level-5 MATLAB .mat file of 2-D numeric arrays, as MATLAB -v6 (compress=False)
    or -v7 (True) writes it."""
    out = [b"MATLAB 5.0 MAT-file, written by oar's tests".ljust(116, b" "), b"\0" * 8,
           struct.pack(order + "H", 0x0100), b"IM" if order == "<" else b"MI"]
    for name, arr in variables.items():
        arr = np.asarray(arr)
        mclass, mtype = _MI[arr.dtype]
        body = (_mat_element(6, struct.pack(order + "II", mclass, 0), order)
                + _mat_element(5, struct.pack(order + "%di" % arr.ndim, *arr.shape), order)
                + _mat_element(1, name.encode(), order)
                + _mat_element(mtype, arr.astype(arr.dtype.newbyteorder(order))
                               .tobytes(order="F"), order))
        element = struct.pack(order + "II", 14, len(body)) + body
        if compress:
            packed = zlib.compress(element)
            element = struct.pack(order + "II", 15, len(packed)) + packed
        out.append(element)
    return b"".join(out)


FLOWER_LABELS = [5, 3, 102, 1, 7, 3]  # image k is labelled FLOWER_LABELS[k - 1]
FLOWER_SETS = {"trnid": [2, 5], "valid": [6], "tstid": [1, 3, 4]}
FLOWER_COLOURS = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (250, 250, 0), (0, 0, 0),
                  (128, 128, 128)]


def _flowers_files(tmp_path, order="<", compress=True):
    jpgs = {}
    with tarfile.open(tmp_path / "102flowers.tgz", "w:gz") as tar:
        _add_dir(tar, "jpg")
        for k, colour in enumerate(FLOWER_COLOURS, 1):
            size = (6 + k, 4 + k % 3)  # different sizes, so a wrong file shows
            jpgs[k] = _encode(Image.new("RGB", size, colour), "JPEG", quality=95)
            _add(tar, f"jpg/image_{k:05d}.jpg", jpgs[k])
    (tmp_path / "imagelabels.mat").write_bytes(
        _mat_file({"labels": np.array([FLOWER_LABELS], np.uint8)}, order, compress))
    (tmp_path / "setid.mat").write_bytes(_mat_file(
        {k: np.array([v], np.uint16) for k, v in FLOWER_SETS.items()}, order, compress))
    files = [str(tmp_path / n) for n in ("102flowers.tgz", "imagelabels.mat", "setid.mat")]
    return files, jpgs


def _check_flowers(files, jpgs):
    # Paddle's splits: train is tstid, test is trnid (the readme's larger split is tstid).
    for mode, ids in (("train", [1, 3, 4]), ("test", [2, 5]), ("valid", [6])):
        ds = Flowers(*files, mode=mode)
        assert len(ds) == len(ids)
        for i, k in enumerate(ids):
            img, label = ds[i]
            assert isinstance(img, Image.Image) and img.size == (6 + k, 4 + k % 3)
            np.testing.assert_array_equal(np.asarray(img), _decoded(jpgs[k]))
            assert label.dtype == np.int64 and label.shape == (1,)
            assert label.tolist() == [FLOWER_LABELS[k - 1]]
    img, label = Flowers(*files, mode="valid", backend="cv2")[0]
    assert img.dtype == np.float32 and img.shape == (4, 12, 3) and label.tolist() == [3]
    np.testing.assert_array_equal(img, _decoded(jpgs[6]))
    assert np.abs(img - 128).max() <= 2  # a grey JPEG decodes to about its grey


def test_flowers_items_and_unpacking(tmp_path):
    files, jpgs = _flowers_files(tmp_path)
    _check_flowers(files, jpgs)
    # Unpacked once beside the archive, as Paddle does (102flowers.tgz -> 102flowers/jpg).
    ds = Flowers(*files)
    assert ds.data_path == str(tmp_path / "102flowers") + os.sep
    assert sorted(os.listdir(tmp_path / "102flowers")) == ["jpg"]
    assert len(os.listdir(tmp_path / "102flowers" / "jpg")) == 6
    # A tree already there is used as it is, not unpacked again.
    os.remove(tmp_path / "102flowers" / "jpg" / "image_00001.jpg")
    assert Flowers(*files, mode="test")[1][1].tolist() == [7]
    assert not os.path.exists(tmp_path / "102flowers" / "jpg" / "image_00001.jpg")


def test_flowers_reads_mat_files_without_scipy(tmp_path, monkeypatch):
    # scipy is optional for oar: without it a level-5 reader takes over (here on big-endian
    # files, uncompressed as MATLAB -v6 writes them).
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.io", None)
    files, jpgs = _flowers_files(tmp_path, order=">", compress=False)
    _check_flowers(files, jpgs)


def test_mat_reader(tmp_path):
    from oar.vision.datasets._mat import read_mat5
    arrays = {"labels": np.array([[5, 3, 102]], np.uint8), "ids": np.array([[1, 300]], np.uint16),
              "m": np.arange(6.0).reshape(2, 3)}
    for order in "<>":
        for compress in (False, True):
            p = tmp_path / f"m{order == '<'}{compress}.mat"
            p.write_bytes(_mat_file(arrays, order, compress))
            got = read_mat5(str(p))
            assert sorted(got) == sorted(arrays)
            for k, v in arrays.items():
                assert got[k].dtype == v.dtype and got[k].shape == v.shape
                np.testing.assert_array_equal(got[k], v)
    assert read_mat5(str(p))["m"][1].tolist() == [3.0, 4.0, 5.0]  # column-major on disk
    p = tmp_path / "bad.mat"
    p.write_bytes(b"\0" * 20)
    with pytest.raises(ValueError, match="not a level-5"):
        read_mat5(str(p))
    try:
        import scipy.io
    except ImportError:
        return
    # scipy agrees on these files and the reader agrees on scipy's own.
    for name in ("mTrueTrue.mat", "mFalseFalse.mat"):
        ref = scipy.io.loadmat(str(tmp_path / name))
        for k, v in arrays.items():
            np.testing.assert_array_equal(ref[k], v)
    for compress in (False, True):
        p = tmp_path / f"scipy{compress}.mat"
        scipy.io.savemat(str(p), arrays, do_compression=compress)
        got = read_mat5(str(p))
        for k, v in scipy.io.loadmat(str(p)).items():
            if not k.startswith("__"):
                assert got[k].dtype == v.dtype
                np.testing.assert_array_equal(got[k], v)


def test_flowers_errors(tmp_path):
    files, _ = _flowers_files(tmp_path)
    with pytest.raises(ValueError, match="give data_file.*102flowers.tgz.*downloads nothing"):
        Flowers(None, files[1], files[2])
    with pytest.raises(ValueError, match="give label_file.*imagelabels.mat"):
        Flowers(files[0], "", files[2])
    with pytest.raises(ValueError, match="give setid_file.*setid.mat"):
        Flowers(files[0], files[1], download=False)
    with pytest.raises(ValueError, match="'mode' must be 'train', 'valid' or 'test'"):
        Flowers(*files, mode="dev")
    with pytest.raises(ValueError, match="'backend' must be 'pil' or 'cv2'"):
        Flowers(*files, backend="tensor")
    with pytest.raises(ValueError, match="no variable 'tstid'"):
        Flowers(files[0], files[1], files[1])
    (tmp_path / "few.mat").write_bytes(_mat_file({"labels": np.array([[1, 2]], np.uint8)}))
    with pytest.raises(ValueError, match="outside 1..2"):
        Flowers(files[0], str(tmp_path / "few.mat"), files[2])
    assert not os.path.exists(tmp_path / "102flowers")  # nothing unpacked on a bad call


# ---- VOC2012 -------------------------------------------------------------------------------
VOC = "VOCdevkit/VOC2012/"
VOC_LISTS = {"train": ["2007_000032", "2007_000039"], "val": ["2007_000063"],
             "trainval": ["2007_000032", "2007_000039", "2007_000063"]}


def _voc_label(k):
    """The class map of image k: class k+1 on the left half, 0 right, a 255 border row."""
    a = np.zeros((4, 6), np.uint8)
    a[:, :3] = k + 1
    a[3] = 255
    img = Image.fromarray(a, mode="P")
    img.putpalette([0, 0, 0, 128, 0, 0, 0, 128, 0, 128, 128, 0] + [224] * 756)
    return img


def _voc_archive(tmp_path):
    path = tmp_path / "VOCtrainval_11-May-2012.tar"
    jpgs = {}
    names = VOC_LISTS["trainval"] + ["2007_000099"]  # the last is in no list
    with tarfile.open(path, "w") as tar:
        for k, n in enumerate(names):
            jpgs[n] = _encode(Image.new("RGB", (6, 4), (40 * k, 100, 250 - 40 * k)), "JPEG")
            _add(tar, VOC + f"JPEGImages/{n}.jpg", jpgs[n])
            _add(tar, VOC + f"SegmentationClass/{n}.png", _encode(_voc_label(k), "PNG"))
        for split, ids in VOC_LISTS.items():
            _add(tar, VOC + f"ImageSets/Segmentation/{split}.txt",
                 "".join(i + "\n" for i in ids).encode())
    return str(path), jpgs


def test_voc2012_items(tmp_path):
    path, jpgs = _voc_archive(tmp_path)
    # Paddle's splits: train is the trainval list, test the train list, valid the val list.
    for mode, ids in (("train", VOC_LISTS["trainval"]), ("test", VOC_LISTS["train"]),
                      ("valid", VOC_LISTS["val"])):
        ds = VOC2012(path, mode=mode)
        assert len(ds) == len(ids)
        for i, n in enumerate(ids):
            img, label = ds[i]
            assert isinstance(img, Image.Image) and img.mode == "RGB" and img.size == (6, 4)
            np.testing.assert_array_equal(np.asarray(img), _decoded(jpgs[n]))
            k = VOC_LISTS["trainval"].index(n)
            assert isinstance(label, Image.Image) and label.mode == "P"
            assert np.asarray(label).tolist() == [[k + 1] * 3 + [0] * 3] * 3 + [[255] * 6]
    ds = VOC2012(path, mode="valid", backend="cv2", transform=lambda a: a[:, :, ::-1])
    img, label = ds[0]
    assert img.dtype == np.float32 and img.shape == (4, 6, 3)
    np.testing.assert_array_equal(img, _decoded(jpgs["2007_000063"])[:, :, ::-1])
    assert label.dtype == np.float32 and label[0].tolist() == [3, 3, 3, 0, 0, 0]  # untransformed


def test_voc2012_copies_and_threads(tmp_path):
    path, _ = _voc_archive(tmp_path)
    ds = VOC2012(path, backend="cv2")
    want = [ds[i] for i in range(len(ds))]
    dup = copy.deepcopy(ds)  # reopens the archive
    ds.close()
    for (a, b), (c, d) in zip(want, [dup[i] for i in range(len(dup))]):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    loader = oar.io.DataLoader(ds, batch_size=1, num_workers=2)  # worker threads share it
    for (x, y), (a, b) in zip(loader, want):
        np.testing.assert_array_equal(x.numpy()[0], a)
        np.testing.assert_array_equal(y.numpy()[0], b)


def test_voc2012_errors(tmp_path):
    path, _ = _voc_archive(tmp_path)
    with pytest.raises(ValueError, match="VOCtrainval_11-May-2012.tar.*downloads nothing"):
        VOC2012()
    with pytest.raises(ValueError, match="'mode' must be 'train', 'valid' or 'test'"):
        VOC2012(path, mode="trainval")
    with pytest.raises(ValueError, match="'backend' must be 'pil' or 'cv2'"):
        VOC2012(path, backend="PIL")
    broken = tmp_path / "broken.tar"
    with tarfile.open(broken, "w") as tar:
        _add(tar, VOC + "ImageSets/Segmentation/trainval.txt", b"a\n")
        _add(tar, VOC + "JPEGImages/a.jpg", b"")
    with pytest.raises(ValueError, match="lacks 1 file.*SegmentationClass/a.png"):
        VOC2012(str(broken))


# ---- DatasetFolder / ImageFolder -----------------------------------------------------------
def _tree(tmp_path):
    """Paddle's docstring tree and more: an upper-case extension, names that sort
    upper-case first, nested and empty class directories, a grey image, stray files."""
    root = tmp_path / "tree"
    files = {
        "class_0/abc.jpg": ("JPEG", (10, 20, 30)), "class_0/def.png": ("PNG", (1, 2, 3)),
        "class_0/Zed.png": ("PNG", (4, 5, 6)),
        "class_1/ghi.jpeg": ("JPEG", (200, 100, 0)), "class_1/jkl.PNG": ("PNG", (7, 8, 9)),
        "class_1/mno/pqr.jpeg": ("JPEG", (0, 0, 255)), "class_1/mno/stu.jpg": ("JPEG", (9, 9, 9)),
        "class_1/mn/x.bmp": ("BMP", 77),  # grey: the loader gives RGB
        "z_class/only.ppm": ("PPM", (11, 12, 13)), "top.png": ("PNG", (50, 60, 70)),
    }
    data = {}
    for rel, (fmt, colour) in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        mode = "L" if isinstance(colour, int) else "RGB"
        data[rel] = _encode(Image.new(mode, (3, 2), colour), fmt)
        p.write_bytes(data[rel])
    (root / "class_1" / "notes.txt").write_text("not an image")
    (root / "class_2").mkdir()  # a class with no files still takes its index
    return root, data


# The order both Paddle and oar list them in: classes sorted; in each, directories in sorted
# path order and files sorted within each (so 'Zed.png' before 'abc.jpg', 'class_1/mn' before
# 'class_1/mno'); files directly in root are in no class.
FOLDER_SAMPLES = [("class_0/Zed.png", 0), ("class_0/abc.jpg", 0), ("class_0/def.png", 0),
                  ("class_1/ghi.jpeg", 1), ("class_1/jkl.PNG", 1), ("class_1/mn/x.bmp", 1),
                  ("class_1/mno/pqr.jpeg", 1), ("class_1/mno/stu.jpg", 1),
                  ("z_class/only.ppm", 3)]


def _rgb(data):
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def test_dataset_folder_items(tmp_path, pil_backend):
    root, data = _tree(tmp_path)
    ds = DatasetFolder(str(root))
    assert ds.classes == ["class_0", "class_1", "class_2", "z_class"]
    assert ds.class_to_idx == {"class_0": 0, "class_1": 1, "class_2": 2, "z_class": 3}
    assert ds.samples == [(str(root / rel), t) for rel, t in FOLDER_SAMPLES]
    assert ds.targets == [t for _, t in FOLDER_SAMPLES] and len(ds) == 9
    for i, (rel, t) in enumerate(FOLDER_SAMPLES):
        img, target = ds[i]
        assert isinstance(img, Image.Image) and img.mode == "RGB"
        assert type(target) is int and target == t
        np.testing.assert_array_equal(np.asarray(img), _rgb(data[rel]))
    assert np.asarray(ds[5][0])[0, 0].tolist() == [77, 77, 77]  # grey BMP -> RGB
    assert np.asarray(ds[0][0])[1, 2].tolist() == [4, 5, 6]
    # The 'cv2' image backend makes the default loader give RGB uint8 arrays (Paddle reads
    # them with OpenCV and converts BGR to RGB; oar decodes with PIL, no OpenCV needed).
    oar.vision.set_image_backend("cv2")
    arr, t = ds[2]
    assert isinstance(arr, np.ndarray) and arr.dtype == np.uint8 and arr.shape == (2, 3, 3)
    assert arr[0, 0].tolist() == [1, 2, 3] and t == 0
    oar.vision.set_image_backend("pil")

    ds = DatasetFolder(str(root), loader=lambda p: os.path.basename(p),
                       extensions=(".jpg", ".JPEG"), transform=str.upper)
    assert [ds[i] for i in range(len(ds))] == [("ABC.JPG", 0), ("GHI.JPEG", 1),
                                               ("PQR.JPEG", 1), ("STU.JPG", 1)]
    assert ds.extensions == (".jpg", ".JPEG")


def test_image_folder_items(tmp_path):
    root, data = _tree(tmp_path)
    ds = ImageFolder(str(root))
    # root's own files come first: its path sorts before those of its subdirectories.
    rels = ["top.png", "class_0/Zed.png", "class_0/abc.jpg", "class_0/def.png",
            "class_1/ghi.jpeg", "class_1/jkl.PNG", "class_1/mn/x.bmp", "class_1/mno/pqr.jpeg",
            "class_1/mno/stu.jpg", "z_class/only.ppm"]
    assert ds.samples == [str(root / r) for r in rels] and len(ds) == 10
    for i, r in enumerate(rels):
        item = ds[i]
        assert isinstance(item, list) and len(item) == 1  # a one-element list, as Paddle
        np.testing.assert_array_equal(np.asarray(item[0]), _rgb(data[r]))
    T = oar.vision.transforms
    ds = ImageFolder(str(root), extensions=[".png"], transform=T.ToTensor())
    assert [os.path.basename(p) for p in ds.samples] == ["top.png", "Zed.png", "def.png",
                                                         "jkl.PNG"]
    (x,) = ds[0]
    np.testing.assert_allclose(x.numpy()[:, 0, 0], np.array([50, 60, 70]) / 255.0, rtol=1e-6)


def test_folder_is_valid_file(tmp_path):
    # oar departs from Paddle here: Paddle documents is_valid_file but never calls it (its
    # extension filter, IMG_EXTENSIONS by default, always decides); oar calls it, and
    # refuses it together with extensions, which Paddle's documentation also rules out.
    root, _ = _tree(tmp_path)
    ds = DatasetFolder(str(root), loader=os.path.basename,
                       is_valid_file=lambda p: p.endswith((".txt", ".bmp")))
    assert ds.samples == [(str(root / "class_1/notes.txt"), 1), (str(root / "class_1/mn/x.bmp"), 1)]
    assert ds.extensions is None
    ds = ImageFolder(str(root), loader=os.path.basename, is_valid_file=lambda p: "mno" in p)
    assert [ds[i] for i in range(len(ds))] == [["pqr.jpeg"], ["stu.jpg"]]
    with pytest.raises(ValueError, match="not both"):
        ImageFolder(str(root), extensions=(".png",), is_valid_file=lambda p: True)


def test_folder_errors(tmp_path):
    root, _ = _tree(tmp_path)
    (tmp_path / "empty" / "a").mkdir(parents=True)
    (tmp_path / "empty" / "a" / "x.txt").write_text("")
    with pytest.raises(RuntimeError, match="Found 0 directories in subfolders of"):
        DatasetFolder(str(tmp_path / "empty"))
    with pytest.raises(RuntimeError, match="Found 0 files in subfolders of"):
        ImageFolder(str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError, match="no directory"):
        DatasetFolder(str(tmp_path / "nope"))
    with pytest.raises(TypeError, match="list or tuple"):
        DatasetFolder(str(root), extensions=".png")


# ---- MNIST / FashionMNIST: the DataLoader's batch is np.stack of the samples -----------------
def _mnist_files(tmp_path, n=10, hw=(28, 28)):
    rng = np.random.default_rng(3)
    imgs = rng.integers(0, 256, (n,) + hw).astype(np.uint8)
    imgs[0, 0, :2] = [0, 255]  # both ends of the range
    labels = rng.integers(0, 10, n).astype(np.uint8)
    for name, arr, code in (("i.gz", imgs, 0x08), ("l.gz", labels, 0x08)):
        header = bytes([0, 0, code, arr.ndim]) + b"".join(d.to_bytes(4, "big") for d in arr.shape)
        with gzip.open(tmp_path / name, "wb") as f:
            f.write(header + arr.tobytes())
    return str(tmp_path / "i.gz"), str(tmp_path / "l.gz")


def _np(x):
    return x.numpy() if isinstance(x, oar.Tensor) else np.asarray(x)


class _MyToTensor(T.ToTensor):  # a subclass may change what ToTensor does: no fast path
    def _apply_image(self, img):
        return super()._apply_image(img) * 2


# Every transform the batch fast path computes itself (ToTensor, Normalize, Transpose, and
# Composes of them, nested too), in both data formats and with the broadcasts a one-channel
# image meets; then transforms it leaves to the per-sample path.
_FAST = {
    "ToTensor": lambda: T.ToTensor(),
    "ToTensor-HWC": lambda: T.ToTensor(data_format="HWC"),
    "Normalize": lambda: T.Compose([T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")]),
    "Normalize-HWC": lambda: T.Normalize(mean=[127.5], std=[127.5], data_format="HWC"),
    "Normalize-scalar": lambda: T.Normalize(100.0, 3.0),
    "Normalize-3ch": lambda: T.Normalize([0.5, 100.0, 200.0], [1.0, 2.0, 7.0]),
    "Normalize-to_rgb": lambda: T.Normalize([10.0], [3.0], to_rgb=True),
    "Transpose": lambda: T.Transpose(),
    "Transpose-102": lambda: T.Transpose((1, 0, 2)),
    "ToTensor+Normalize": lambda: T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])]),
    "ToTensor+Normalize-3ch": lambda: T.Compose([T.ToTensor(), T.Normalize([0.1, 0.2, 0.3],
                                                                         [0.3, 0.2, 0.1])]),
    "ToTensor-HWC+Normalize-HWC": lambda: T.Compose([T.ToTensor("HWC"),
                                                     T.Normalize([0.5], [0.25], "HWC")]),
    "Transpose+Normalize": lambda: T.Compose([T.Transpose(), T.Normalize([127.5], [127.5])]),
    "Normalize+ToTensor": lambda: T.Compose([T.Normalize([127.5], [127.5]), T.ToTensor()]),
    "ToTensor+ToTensor-HWC": lambda: T.Compose([T.ToTensor(), T.ToTensor("HWC")]),
    "ToTensor+Transpose": lambda: T.Compose([T.ToTensor(), T.Transpose((1, 2, 0))]),
    "nested": lambda: T.Compose([T.Compose([T.Transpose()]), T.Compose([T.ToTensor(),
                                                                        T.Normalize(0.5, 2.0)])]),
}
_SLOW = {
    "none": lambda: None,
    "empty Compose": lambda: T.Compose([]),
    "Resize": lambda: T.Compose([T.Resize(14), T.ToTensor()]),
    "CenterCrop": lambda: T.Compose([T.CenterCrop(20), T.Transpose()]),
    "RandomHorizontalFlip": lambda: T.Compose([T.RandomHorizontalFlip(0.5), T.ToTensor()]),
    "a ToTensor subclass": lambda: T.Compose([_MyToTensor(), T.Normalize([0.5], [0.5])]),
}
_BACKENDS = ["pil", "cv2", None]


def _compare_batch_with_samples(ds, indices, seed=None):
    """DataLoader's batch of ds at indices == np.stack of ds[i], dtype and values."""
    if seed is not None:
        oar.seed(seed)
    x, y = next(iter(DataLoader(Subset(ds, indices), batch_size=len(indices))))
    if seed is not None:
        oar.seed(seed)
    samples = [ds[i] for i in indices]
    want_x = np.stack([_np(s[0]) for s in samples])
    want_y = np.stack([s[1] for s in samples])
    assert x.numpy().dtype == want_x.dtype and x.numpy().shape == want_x.shape
    np.testing.assert_array_equal(x.numpy(), want_x)
    assert y.numpy().dtype == np.int64 and y.numpy().shape == (len(indices), 1)
    np.testing.assert_array_equal(y.numpy(), want_y)
    return x.numpy()


@pytest.mark.parametrize("backend", _BACKENDS)
@pytest.mark.parametrize("name", list(_FAST))
def test_mnist_batch_fast_path_is_exactly_stacked_samples(tmp_path, pil_backend, backend, name,
                                                          monkeypatch):
    ds = MNIST(*_mnist_files(tmp_path), transform=_FAST[name](), backend=backend)
    calls = []
    real = MNIST.__getitem__
    monkeypatch.setattr(MNIST, "__getitem__", lambda self, i: calls.append(i) or real(self, i))
    _compare_batch_with_samples(ds, [7, 0, 3, 3, 9])
    assert len(calls) == 5  # only the reference samples: the batch took the fast path


@pytest.mark.parametrize("backend", _BACKENDS)
@pytest.mark.parametrize("name", list(_SLOW))
def test_mnist_batch_of_other_transforms_is_stacked_samples(tmp_path, pil_backend, backend, name):
    ds = MNIST(*_mnist_files(tmp_path), transform=_SLOW[name](), backend=backend)
    if backend != "cv2" and name in ("none", "empty Compose"):
        with pytest.raises(RuntimeError, match="cannot batch samples of type Image"):
            next(iter(DataLoader(ds, batch_size=2)))  # PIL images do not batch (nor in Paddle)
        return
    _compare_batch_with_samples(ds, [7, 0, 3, 3, 9], seed=11)


def test_mnist_backend_default_and_cv2_dtype(tmp_path, pil_backend):
    files = _mnist_files(tmp_path)
    oar.vision.set_image_backend("cv2")  # backend=None follows it, as Paddle
    ds = MNIST(*files, transform=T.ToTensor())
    assert ds.backend == "cv2"
    x = _compare_batch_with_samples(ds, [0, 1])
    assert x.shape == (2, 1, 28, 28) and x.max() == 255.0  # not divided: float32 in, as Paddle
    oar.vision.set_image_backend("pil")
    assert MNIST(*files).backend == "pil"
    saved = oar.get_default_dtype()
    oar.set_default_dtype("float64")  # 'cv2' images take the default dtype of construction time
    try:
        ds = MNIST(*files, transform=T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])]),
                   backend="cv2")
        plain = MNIST(*files, backend="cv2")
    finally:
        oar.set_default_dtype(saved)
    assert _compare_batch_with_samples(ds, [4, 2]).dtype == np.float64
    assert _compare_batch_with_samples(plain, [4, 2]).dtype == np.float64
    with pytest.raises(ValueError, match="backend"):
        MNIST(*files, backend="tensor")


# Measured on Paddle 3.3.1 (paddle.vision.datasets.FashionMNIST on the same t10k files):
# sample 0 and the first DataLoader batch of 4 (shape, dtype, min, max); labels [9, 2, 1, 1].
_PADDLE_FASHION = {
    ("pil", "norm"): ([1, 28, 28], "float32", -1.0, 1.0),
    ("pil", "totensor"): ([1, 28, 28], "float32", 0.0, 1.0),
    ("pil", "transpose"): ([1, 28, 28], "uint8", 0, 255),
    ("cv2", "norm"): ([1, 28, 28], "float32", -1.0, 1.0),
    ("cv2", "totensor"): ([1, 28, 28], "float32", 0.0, 255.0),
    ("cv2", "totensor+norm0.5"): ([1, 28, 28], "float32", -1.0, 509.0),
    ("cv2", "none"): ([28, 28], "float32", 0.0, 255.0),
}


@pytest.mark.skipif(not os.path.isdir(FASHION_MNIST_DIR), reason="dataset-fashion-mnist")
@pytest.mark.parametrize("backend,tf", list(_PADDLE_FASHION))
def test_fashion_mnist_sample_and_batch_as_paddle(backend, tf):
    transform = {"norm": T.Compose([T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")]),
                 "totensor": T.ToTensor(), "transpose": T.Transpose(), "none": None,
                 "totensor+norm0.5": T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])])}[tf]
    ds = FashionMNIST(mode="test", transform=transform, backend=backend)
    shape, dtype, lo, hi = _PADDLE_FASHION[backend, tf]
    img = _np(ds[0][0])
    assert list(img.shape) == shape and img.dtype == dtype
    assert (img.min(), img.max()) == (lo, hi)
    x, y = next(iter(DataLoader(ds, batch_size=4)))
    assert list(x.shape) == [4] + shape and x.numpy().dtype == dtype
    assert (x.numpy().min(), x.numpy().max()) == (lo, hi)
    assert y.numpy().tolist() == [[9], [2], [1], [1]]
    _compare_batch_with_samples(ds, [0, 1, 2, 3])


# Where Paddle 3.3.1 has each dataset class (paddle.vision.X, paddle.vision.datasets.X and
# the defining module, all one object), measured with dir() on Paddle's modules.
_PADDLE_PLACES = {
    "DatasetFolder": "folder", "ImageFolder": "folder", "MNIST": "mnist", "FashionMNIST": "mnist",
    "Cifar10": "cifar", "Cifar100": "cifar", "Flowers": "flowers", "VOC2012": "voc2012",
}


@pytest.mark.parametrize("name", list(_PADDLE_PLACES))
def test_dataset_classes_at_paddles_places(name):
    import importlib
    cls = getattr(oar.vision.datasets, name)
    assert getattr(oar.vision, name) is cls
    module = importlib.import_module(f"oar.vision.datasets.{_PADDLE_PLACES[name]}")
    assert getattr(module, name) is cls
    assert name in oar.vision.datasets.__all__
    # paddle.vision.__all__ is ['set_image_backend', 'get_image_backend', 'image_load']
    assert name not in oar.vision.__all__
