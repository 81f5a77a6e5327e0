"""oar.audio.datasets (ESC50, TESS) on tiny synthetic copies of Paddle's archive layouts
built in tmp_path. Expected values were produced by Paddle 3.3.1 (CPU build) on the same
inputs and are hard-coded here (Paddle is not installed in CI)."""
import os
import wave
import zipfile

import numpy as np
import pytest

import oar
from oar.audio.datasets import ESC50, TESS
from oar.audio.datasets import dataset as audio_dataset
from oar.audio.datasets.dataset import AudioClassificationDataset
from oar.audio.functional import window as W


# ---- datasets: synthetic archives --------------------------------------------------------------
def write_wav(path, samples, sr, channels=1):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(str(path), "wb") as f:
        f.setnchannels(channels)
        f.setsampwidth(2)
        f.setframerate(sr)
        f.writeframes(np.asarray(samples, "<i2").tobytes())


def tone(n, k, sr):
    t = np.arange(n) / sr
    return np.round(8000 * np.sin(2 * np.pi * (100 + 37 * k) * t) + 50 * k).astype(np.int16)


ESC_ROWS = [  # filename, fold, target, in the csv's order
    ("1-100032-A-0.wav", 1, 0), ("1-100038-A-14.wav", 1, 14), ("2-100648-A-43.wav", 2, 43),
    ("3-102583-A-36.wav", 3, 36), ("4-102844-A-49.wav", 4, 49), ("5-103415-A-19.wav", 5, 19),
    ("1-110389-A-0.wav", 1, 0), ("5-9032-A-0.wav", 5, 0), ("2-117615-A-22.wav", 2, 22),
]
# The order the zip holds them in (the os.walk order Paddle's run saw on its directory).
TESS_FILES = [
    "top_cat_fear.wav", "YAF_happy/YAF_bath_happy.wav", "YAF_sad/YAF_beg_sad.wav",
    "YAF_sad/YAF_bone_sad.wav", "OAF_neutral/OAF_bite_neutral.wav",
    "OAF_Fear/OAF_base_fear.wav", "OAF_angry/OAF_bar_angry.wav",
    "OAF_angry/OAF_back_angry.wav", "OAF_disgust/OAF_boat_disgust.wav",
    "YAF_pleasant_surprised/YAF_bean_ps.wav",
]
TESS_LABELS = [2, 3, 6, 6, 4, 2, 0, 0, 1, 5]
# The order the files' tones were numbered in for Paddle's run (their lengths follow it).
TESS_TONES = [
    "OAF_angry/OAF_back_angry.wav", "OAF_angry/OAF_bar_angry.wav", "OAF_Fear/OAF_base_fear.wav",
    "YAF_happy/YAF_bath_happy.wav", "YAF_pleasant_surprised/YAF_bean_ps.wav",
    "YAF_sad/YAF_beg_sad.wav", "OAF_neutral/OAF_bite_neutral.wav",
    "OAF_disgust/OAF_boat_disgust.wav", "YAF_sad/YAF_bone_sad.wav", "top_cat_fear.wav",
]


def esc_samples(i):
    sr = 8000 if i % 2 == 0 else 16000
    return tone(sr // 10 + 7 * i, i, sr), sr


def tess_samples(rel):
    i = TESS_TONES.index(rel)
    return tone(2400 + 11 * i, i, 24414), 24414


def make_esc(root):
    esc = os.path.join(root, "ESC-50-master")
    lines = ["filename,fold,target,category,esc10,src_file,take"]
    for i, (fn, fold, target) in enumerate(ESC_ROWS):
        write_wav(os.path.join(esc, "audio", fn), *esc_samples(i))
        lines.append(f"{fn},{fold},{target},cat{target},False,{fn.split('-')[1]},A")
    os.makedirs(os.path.join(esc, "meta"))
    with open(os.path.join(esc, "meta", "esc50.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return esc


def make_tess(root):
    tess = os.path.join(root, "TESS_Toronto_emotional_speech_set")
    for rel in TESS_FILES:
        write_wav(os.path.join(tess, rel), *tess_samples(rel))
    with open(os.path.join(tess, "OAF_angry", "notes.txt"), "w") as f:
        f.write("not audio\n")
    return tess


def zip_tree(root, top, out, order):
    with zipfile.ZipFile(out, "w") as z:
        for rel in order:
            z.write(os.path.join(root, top, rel), f"{top}/{rel}")
    return str(out)


@pytest.fixture
def data(tmp_path, monkeypatch):
    """Extracted trees under tmp_path/tree, zips under tmp_path/zips, an empty DATA_HOME."""
    tree = tmp_path / "tree"
    make_esc(str(tree))
    make_tess(str(tree))
    (tmp_path / "zips").mkdir()
    esc_zip = zip_tree(str(tree), "ESC-50-master", tmp_path / "zips" / "ESC-50-master.zip",
                       ["meta/esc50.csv"] + [f"audio/{r[0]}" for r in ESC_ROWS])
    tess_zip = zip_tree(str(tree), "TESS_Toronto_emotional_speech_set",
                        tmp_path / "zips" / "TESS_Toronto_emotional_speech_set.zip",
                        TESS_FILES[:7] + ["OAF_angry/notes.txt"] + TESS_FILES[7:])
    (tmp_path / "home").mkdir()
    monkeypatch.setattr(audio_dataset, "DATA_HOME", str(tmp_path / "home"))
    return {"tree": str(tree), "esc_zip": esc_zip, "tess_zip": tess_zip,
            "home": str(tmp_path / "home")}


# Paddle 3.3.1's ESC50 on these files: (mode, split) -> (file names, labels)
ESC_EXPECTED = {
    ("train", 1): ([2, 3, 4, 5, 7, 8], [43, 36, 49, 19, 0, 22]),
    ("dev", 1): ([0, 1, 6], [0, 14, 0]),
    ("train", 2): ([0, 1, 3, 4, 5, 6, 7], [0, 14, 36, 49, 19, 0, 0]),
    ("dev", 2): ([2, 8], [43, 22]),
    ("train", 3): ([0, 1, 2, 4, 5, 6, 7, 8], [0, 14, 43, 49, 19, 0, 0, 22]),
    ("dev", 3): ([3], [36]),
    ("train", 4): ([0, 1, 2, 3, 5, 6, 7, 8], [0, 14, 43, 36, 19, 0, 0, 22]),
    ("dev", 4): ([4], [49]),
    ("train", 5): ([0, 1, 2, 3, 4, 6, 8], [0, 14, 43, 36, 49, 0, 22]),
    ("dev", 5): ([5, 7], [19, 0]),
}


@pytest.mark.parametrize("source", ["data_home", "directory", "zip"])
def test_esc50_folds_match_paddle(data, source):
    if source == "data_home":
        audio_dataset.DATA_HOME = data["tree"]
        archive, base = None, data["tree"]
    elif source == "directory":
        archive, base = {"url": data["tree"]}, data["tree"]
    else:
        archive, base = {"url": data["esc_zip"]}, data["esc_zip"]
    for (mode, split), (rows, labels) in ESC_EXPECTED.items():
        ds = ESC50(mode=mode, split=split, archive=archive)
        assert len(ds) == len(rows)
        assert ds.labels == labels
        assert ds.files == [os.path.join(base, "ESC-50-master", "audio", ESC_ROWS[r][0])
                            for r in rows]
    ds = ESC50(archive=archive)  # mode 'train', split 1 by default
    assert ds.labels == ESC_EXPECTED[("train", 1)][1]
    for i, r in enumerate(ESC_EXPECTED[("train", 1)][0]):
        x, y = ds[i]
        samples, sr = esc_samples(r)
        assert isinstance(x, oar.Tensor) and x.dtype == oar.float32
        assert type(y) is int and y == ESC_ROWS[r][2]
        np.testing.assert_array_equal(x.numpy(), samples.astype(np.float32) / 32768)
        assert ds.sample_rate == sr


# Paddle's feature shapes for ESC50(mode='dev', split=2, feat_type=..., **kw): the files
# 2-100648-A-43 (814 samples) and 2-117615-A-22 (856), both at 8 kHz.
FEATURES = [
    ("raw", {}, [(814,), (856,)]),
    ("melspectrogram", dict(n_fft=256, hop_length=64, n_mels=32), [(32, 13), (32, 14)]),
    ("mfcc", dict(n_mfcc=13, n_fft=256, n_mels=32), [(13, 13), (13, 14)]),
    ("logmelspectrogram", dict(n_fft=256, n_mels=32, top_db=80.0), [(32, 13), (32, 14)]),
    ("spectrogram", dict(n_fft=256, hop_length=100), [(129, 9), (129, 9)]),
    ("mfcc", {}, [(40, 7), (40, 7)]),
]


@pytest.mark.parametrize("feat_type,kw,shapes", FEATURES)
def test_esc50_features(data, feat_type, kw, shapes):
    ds = ESC50(mode="dev", split=2, feat_type=feat_type, archive={"url": data["esc_zip"]},
               **kw)
    assert ds.feat_type == feat_type and ds.feat_config == kw
    for i, r in enumerate([2, 8]):
        x, y = ds[i]
        assert tuple(x.shape) == shapes[i] and x.dtype == oar.float32
        assert y == ESC_ROWS[r][2]
        samples, sr = esc_samples(r)
        wav = oar.to_tensor(samples.astype(np.float32)[None] / 32768)
        layer = audio_dataset.feat_funcs[feat_type]
        if layer is None:
            want = wav[0]
        elif feat_type == "spectrogram":
            want = layer(**kw)(wav)[0]
        else:
            want = layer(sr=sr, **kw)(wav)[0]
        np.testing.assert_array_equal(x.numpy(), want.numpy())


def test_tess_zip_folds_match_paddle(data):
    # Paddle's TESS on a directory walked in TESS_FILES's order; the zip holds that order
    archive = {"url": data["tess_zip"]}
    base = os.path.join(data["tess_zip"], "TESS_Toronto_emotional_speech_set")
    expected_dev = {(3, 1): [2, 6, 0, 5], (3, 2): [3, 4, 0], (3, 3): [6, 2, 1],
                    (5, 1): [2, 2], (5, 2): [3, 0], (5, 3): [6, 0], (5, 4): [6, 1],
                    (5, 5): [4, 5]}
    expected_train = {(3, 1): [3, 6, 4, 2, 0, 1], (3, 2): [2, 6, 6, 2, 0, 1, 5],
                      (5, 1): [3, 6, 6, 4, 0, 0, 1, 5], (5, 5): [2, 3, 6, 6, 2, 0, 0, 1]}
    for (n_folds, split), labels in expected_dev.items():
        ds = TESS(mode="dev", n_folds=n_folds, split=split, archive=archive)
        assert ds.labels == labels
        k = [i for i in range(len(TESS_FILES)) if i % n_folds + 1 == split]
        assert ds.files == [os.path.join(base, *TESS_FILES[i].split("/")) for i in k]
    for (n_folds, split), labels in expected_train.items():
        assert TESS(n_folds=n_folds, split=split, archive=archive).labels == labels
    ds = TESS(mode="dev", n_folds=1, archive=archive)
    assert ds.labels == TESS_LABELS and len(TESS(n_folds=1, archive=archive)) == 0
    x, y = ds[3]
    np.testing.assert_array_equal(x.numpy(),
                                  tess_samples(TESS_FILES[3])[0].astype(np.float32) / 32768)
    assert y == 6 and ds.sample_rate == 24414


def test_tess_directory_folds_follow_the_walk(data):
    # Paddle numbers the files in os.walk's (unsorted, filesystem-dependent) order.
    root = os.path.join(data["tree"], "TESS_Toronto_emotional_speech_set")
    walk = [os.path.join(r, f) for r, _, fs in os.walk(root) for f in fs if f.endswith(".wav")]
    label = {os.path.join(root, *rel.split("/")): lab
             for rel, lab in zip(TESS_FILES, TESS_LABELS)}
    for n_folds in (1, 3, 5):
        for split in range(1, n_folds + 1):
            for mode in ("train", "dev"):
                ds = TESS(mode=mode, n_folds=n_folds, split=split,
                          archive={"url": data["tree"]})
                want = [f for k, f in enumerate(walk) if (k % n_folds + 1 == split) ==
                        (mode == "dev")]
                assert ds.files == want
                assert ds.labels == [label[f] for f in want]


def test_tess_features(data):
    kw = dict(n_mfcc=13, n_fft=256, n_mels=32)
    ds = TESS(mode="dev", n_folds=3, split=2, feat_type="mfcc", archive={"url": data["tess_zip"]},
              **kw)
    shapes = [(13, 39), (13, 39), (13, 38)]  # Paddle's
    for i, k in enumerate([1, 4, 7]):
        x, y = ds[i]
        assert tuple(x.shape) == shapes[i] and y == TESS_LABELS[k]
        samples, sr = tess_samples(TESS_FILES[k])
        want = oar.audio.features.MFCC(sr=sr, **kw)(
            oar.to_tensor(samples.astype(np.float32)[None] / 32768))[0]
        np.testing.assert_array_equal(x.numpy(), want.numpy())


def test_no_download(data):
    # nothing under DATA_HOME: the error says what to pass, and that oar does not download
    for cls, url in ((ESC50, ESC50.archive["url"]), (TESS, TESS.archive["url"])):
        with pytest.raises(ValueError, match=rf"{cls.__name__}: .*oar downloads nothing: give "
                                             rf"archive=\{{'url': path\}}.*{url}"):
            cls()
        with pytest.raises(ValueError, match="oar downloads nothing"):
            cls(archive={"url": url})


def test_paddles_download_in_data_home(data):
    # Paddle's zip in DATA_HOME (not extracted) is read in place, checked against the md5
    os.replace(data["esc_zip"], os.path.join(data["home"], "ESC-50-master.zip"))
    with pytest.raises(ValueError, match="md5"):
        ESC50()  # the synthetic zip is not Paddle's archive
    ds = ESC50(mode="dev", archive={"url": ESC50.archive["url"]})  # no md5 to check
    assert ds.labels == [0, 14, 0]
    assert ds.files[0] == os.path.join(data["home"], "ESC-50-master.zip", "ESC-50-master",
                                       "audio", "1-100032-A-0.wav")
    np.testing.assert_array_equal(ds[0][0].numpy(),
                                  esc_samples(0)[0].astype(np.float32) / 32768)


def test_archive_md5(data):
    import hashlib
    with open(data["esc_zip"], "rb") as f:
        md5 = hashlib.md5(f.read()).hexdigest()
    assert len(ESC50(archive={"url": data["esc_zip"], "md5": md5})) == 6
    with pytest.raises(ValueError, match=r"ESC50: the md5 of .* is not 0+"):
        ESC50(archive={"url": data["esc_zip"], "md5": "0" * 32})


def test_dataset_argument_errors(data):
    tree = {"url": data["tree"]}
    with pytest.raises(ValueError, match="ESC50: argument 'mode'"):
        ESC50(mode="test", archive=tree)
    for bad in (0, 6):
        with pytest.raises(ValueError, match="ESC50: argument 'split'"):
            ESC50(split=bad, archive=tree)
    for bad in (True, 1.0, "1"):
        with pytest.raises(TypeError, match="ESC50: argument 'split'"):
            ESC50(split=bad, archive=tree)
    with pytest.raises(ValueError, match="TESS: argument 'n_folds'"):
        TESS(n_folds=0, archive=tree)
    with pytest.raises(TypeError, match="TESS: argument 'n_folds'"):
        TESS(n_folds=2.0, archive=tree)
    with pytest.raises(ValueError, match="TESS: argument 'split' must be between 1 and 3"):
        TESS(n_folds=3, split=4, archive=tree)
    with pytest.raises(ValueError, match="ESC50: argument 'feat_type'"):
        ESC50(feat_type="fbank", archive=tree)
    with pytest.raises(TypeError, match="TESS: .*MFCC.*n_mfc"):
        TESS(feat_type="mfcc", n_mfc=3, archive=tree)
    with pytest.raises(TypeError, match="ESC50: feat_type 'melspectrogram' takes each file's"):
        ESC50(feat_type="melspectrogram", sr=8000, archive=tree)
    for bad in ("x.zip", {"md5": "0"}, {"url": 3}):
        with pytest.raises(TypeError, match="ESC50: .*archive"):
            ESC50(archive=bad)
    with pytest.raises(FileNotFoundError, match="ESC50: no file or directory"):
        ESC50(archive={"url": os.path.join(data["tree"], "missing.zip")})
    with pytest.raises(FileNotFoundError, match="TESS: .* holds no "
                                                "TESS_Toronto_emotional_speech_set"):
        TESS(archive={"url": data["esc_zip"]})
    with pytest.raises(ValueError, match="ESC50: .* is not a zip archive"):
        ESC50(archive={"url": os.path.join(data["tree"], "ESC-50-master", "meta",
                                           "esc50.csv")})


def test_bad_archive_contents(tmp_path):
    root = tmp_path / "bad"
    os.makedirs(root / "ESC-50-master" / "audio")
    os.makedirs(root / "ESC-50-master" / "meta")
    (root / "ESC-50-master" / "meta" / "esc50.csv").write_text(
        "filename,fold,target,category,esc10,src_file,take\na.wav,1,0\n")
    with pytest.raises(ValueError, match="ESC50: line 2 of .* has 3 comma-separated fields"):
        ESC50(archive={"url": str(root)})
    write_wav(str(root / "TESS_Toronto_emotional_speech_set" / "a_b_bored.wav"), [0] * 8, 8000)
    with pytest.raises(ValueError, match="TESS: .* names the emotion 'bored'"):
        TESS(archive={"url": str(root)})
    write_wav(str(root / "TESS_Toronto_emotional_speech_set" / "noname.wav"), [0] * 8, 8000)
    with pytest.raises(ValueError, match="TESS: .* is not named speaker_word_emotion.wav"):
        TESS(archive={"url": str(root)})


def test_base_dataset(tmp_path):
    # Paddle keeps a stereo file's two channels (only a leading channel of 1 is dropped)
    path = str(tmp_path / "stereo.wav")
    write_wav(path, np.arange(200) * 50, 8000, channels=2)
    ds = AudioClassificationDataset([path], [7], sample_rate=5)
    assert ds.sample_rate == 5 and len(ds) == 1
    x, y = ds[0]
    assert x.shape == [2, 100] and y == 7 and ds.sample_rate == 8000
    np.testing.assert_array_equal(x.numpy()[:, :2], [[0.0, 0.0030517578125],
                                                     [0.00152587890625, 0.00457763671875]])
    with pytest.raises(ValueError, match="1 files but 2 labels"):
        AudioClassificationDataset([path], [1, 2])
    assert oar.audio.datasets.__all__ == ["ESC50", "TESS"]


def test_docstring_examples():
    import doctest

    import oar.audio.datasets.esc50 as esc50
    import oar.audio.datasets.tess as tess

    failed = 0
    for mod in (W, audio_dataset, esc50, tess):
        failed += doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE).failed
    assert failed == 0
