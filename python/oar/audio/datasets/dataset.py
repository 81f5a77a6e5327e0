"""The base of oar's audio classification datasets, and where their files are found.

Paddle's ESC50 and TESS download a zip archive into Paddle's dataset directory and
extract it there. oar downloads nothing: it reads the extracted tree where Paddle leaves
it (``DATA_HOME``), Paddle's downloaded zip there, or a local copy you name with
``archive={'url': path}`` (the zip itself, read in place, or the directory it was
extracted in).
"""

from __future__ import annotations

import hashlib
import inspect
import io
import os
import zipfile

import numpy as np

from ...io import Dataset
from ..backends import load
from ..features import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

__all__ = ["AudioClassificationDataset", "DATA_HOME", "feat_funcs"]

# Paddle's paddle.dataset.common.DATA_HOME: where Paddle's own classes put these archives,
# so data Paddle fetched once is found without copying it.
DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))

feat_funcs = {
    "raw": None,
    "melspectrogram": MelSpectrogram,
    "mfcc": MFCC,
    "logmelspectrogram": LogMelSpectrogram,
    "spectrogram": Spectrogram,
}


def _check_feat(name, feat_type, feat_config):
    """Checks feat_type and that the feature layer takes the keyword arguments, so a typo
    fails at construction rather than at the first sample."""
    if not isinstance(feat_type, str) or feat_type not in feat_funcs:
        raise ValueError(
            f"{name}: argument 'feat_type' must be one of {list(feat_funcs)}, but got {feat_type!r}"
        )
    layer = feat_funcs[feat_type]
    if layer is None:
        return  # the raw waveform: the feature arguments go unused, as in Paddle
    given = dict(feat_config)
    if layer is not Spectrogram:
        if "sr" in given:
            raise TypeError(
                f"{name}: feat_type {feat_type!r} takes each file's own sample "
                f"rate as sr; do not pass sr"
            )
        given["sr"] = 16000  # stands for the files' rate, passed at load time
    try:
        inspect.signature(layer).bind(**given)
    except TypeError as e:
        raise TypeError(
            f"{name}: the keyword arguments of feat_type {feat_type!r} go to "
            f"{layer.__name__}, which refuses them: {e}"
        ) from None


class AudioClassificationDataset(Dataset):
    """Audio files with class labels: sample i is (feature, label) (Paddle's
    paddle.audio.datasets.dataset.AudioClassificationDataset).

    The file is read with oar.audio.load (a PCM WAV file); a mono waveform is 1-D. The
    feature is the float32 waveform itself (feat_type 'raw') or the output of the
    oar.audio.features layer of that name, built with the file's sample rate (``sr``)
    and the extra keyword arguments, for a batch of one, without the batch dim:
    'spectrogram', 'melspectrogram', 'logmelspectrogram' [freq, frames] or 'mfcc'
    [n_mfcc, frames]. The label is the int given.

    Args:
        files (list[str]): the audio files.
        labels (list[int]): their labels.
        feat_type (str, optional): 'raw' (default), 'melspectrogram', 'mfcc',
            'logmelspectrogram' or 'spectrogram'.
        sample_rate (int, optional): kept as the attribute `sample_rate`, which each
            loaded file then sets to its own rate (as in Paddle). Default: None.
        **kwargs: the feature layer's arguments (e.g. n_mfcc=40).

    Examples:
        >>> import oar, os, tempfile
        >>> from oar.audio.datasets.dataset import AudioClassificationDataset
        >>> path = os.path.join(tempfile.mkdtemp(), "a.wav")
        >>> oar.audio.save(path, oar.zeros([1, 800]), 8000)
        >>> ds = AudioClassificationDataset([path], [3], feat_type="mfcc", n_mfcc=13)
        >>> feat, label = ds[0]
        >>> print(list(feat.shape), label)
        [13, 7] 3
    """

    # A zip archive read in place: `files` under this path are its members.
    _zip_path = None

    def __init__(self, files, labels, feat_type="raw", sample_rate=None, **kwargs):
        super().__init__()
        _check_feat(type(self).__name__, feat_type, kwargs)
        if len(files) != len(labels):
            raise ValueError(f"{type(self).__name__}: {len(files)} files but {len(labels)} labels")
        self.files = files
        self.labels = labels
        self.feat_type = feat_type
        self.sample_rate = sample_rate
        self.feat_config = kwargs

    def _audio(self, file):
        # What oar.audio.load reads for `file`: the path, or the member of the zip.
        if self._zip_path is not None:
            member = os.path.relpath(file, self._zip_path).replace(os.sep, "/")
            with zipfile.ZipFile(self._zip_path) as z:
                return io.BytesIO(z.read(member))
        return file

    def _convert_to_record(self, idx):
        file, label = self.files[idx], self.labels[idx]
        waveform, sample_rate = load(self._audio(file))
        self.sample_rate = sample_rate
        if waveform.ndim == 2 and waveform.shape[0] == 1:
            waveform = waveform.squeeze(0)
        layer = feat_funcs[self.feat_type]
        if layer is None:
            return {"feat": waveform, "label": label}
        extra = {} if layer is Spectrogram else {"sr": sample_rate}
        extractor = layer(**extra, **self.feat_config)
        return {"feat": extractor(waveform.unsqueeze(0)).squeeze(0), "label": label}

    def __getitem__(self, idx):
        record = self._convert_to_record(idx)
        return record["feat"], record["label"]

    def __len__(self):
        return len(self.files)


# ---- finding the files -------------------------------------------------------------------
class _DirTree:
    """An extracted archive: paths relative to `root`."""

    def __init__(self, root):
        self.root = root
        self.zip_path = None

    def path(self, rel):
        return os.path.join(self.root, rel)

    def isdir(self, rel):
        return os.path.isdir(self.path(rel))

    def isfile(self, rel):
        return os.path.isfile(self.path(rel))

    def read_text(self, rel):
        with open(self.path(rel), "r") as f:
            return f.read()

    def walk_files(self, rel):
        # os.walk's order, unsorted: Paddle numbers TESS's folds by it, so the same
        # directory gives the same folds in both.
        return [os.path.join(r, f) for r, _, fs in os.walk(self.path(rel)) for f in fs]


class _ZipTree:
    """The zip archive itself, read in place; member a/b is the path `zip_path`/a/b."""

    def __init__(self, zip_path):
        self.zip_path = zip_path
        with zipfile.ZipFile(zip_path) as z:
            self.names = z.namelist()
        self.members = set(self.names)
        self.dirs = {n[:i] for n in self.names for i in range(len(n)) if n[i] == "/"}

    def path(self, rel):
        return os.path.join(self.zip_path, rel)

    def _key(self, rel):
        return rel.replace(os.sep, "/").strip("/")

    def isdir(self, rel):
        return self._key(rel) in self.dirs

    def isfile(self, rel):
        return self._key(rel) in self.members

    def read_text(self, rel):
        with zipfile.ZipFile(self.zip_path) as z:
            return z.read(self._key(rel)).decode("utf-8")

    def walk_files(self, rel):
        # os.walk's order over the tree (a folder's files, then its subfolders in turn),
        # with the archive's order standing for the directory listing.
        prefix = self._key(rel) + "/"
        tree = {"files": [], "dirs": {}}
        for name in self.names:
            if not name.startswith(prefix):
                continue
            *folders, last = name[len(prefix) :].split("/")
            node = tree
            for d in folders:
                node = node["dirs"].setdefault(d, {"files": [], "dirs": {}})
            if last:
                node["files"].append(name)
        out = []

        def visit(node):
            out.extend(os.path.join(self.zip_path, *n.split("/")) for n in node["files"])
            for child in node["dirs"].values():
                visit(child)

        visit(tree)
        return out


def _md5(path):
    h = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _open_zip(name, path, md5):
    if not zipfile.is_zipfile(path):
        raise ValueError(
            f"{name}: {path!r} is not a zip archive (give the zip Paddle "
            f"downloads, or the directory it was extracted in)"
        )
    if md5 is not None and _md5(path) != md5:
        raise ValueError(
            f"{name}: the md5 of {path!r} is not {md5} (archive['md5']): an "
            f"incomplete or different archive"
        )
    return _ZipTree(path)


def _locate(name, archive, needed):
    """The tree holding `needed` ((relative path, "dir" or "file") pairs): Paddle's
    layout under DATA_HOME or in Paddle's zip there when archive['url'] is Paddle's URL,
    else the local zip or directory archive['url'] names."""
    if not isinstance(archive, dict) or "url" not in archive:
        raise TypeError(
            f"{name}: argument 'archive' must be a dict with a 'url' (and "
            f"optionally an 'md5'), but got {archive!r}"
        )
    url = archive["url"]
    if not isinstance(url, (str, os.PathLike)):
        raise TypeError(
            f"{name}: archive['url'] must be a path or a URL, but got {type(url).__name__}"
        )
    url = os.fspath(url)
    md5 = archive.get("md5")
    what = " and ".join(f"{rel}{os.sep if kind == 'dir' else ''}" for rel, kind in needed)

    def holds(tree):
        return all(tree.isdir(rel) if kind == "dir" else tree.isfile(rel) for rel, kind in needed)

    if url.startswith(("http://", "https://")):
        if holds(_DirTree(DATA_HOME)):
            return _DirTree(DATA_HOME)
        downloaded = os.path.join(DATA_HOME, url.rstrip("/").split("/")[-1])
        if os.path.isfile(downloaded):
            tree = _open_zip(name, downloaded, md5)
            if holds(tree):
                return tree
        raise ValueError(
            f"{name}: no {what} under {DATA_HOME!r} (where Paddle extracts its "
            f"download) and oar downloads nothing: give archive={{'url': path}} "
            f"with the path of a local copy of {url} or of the directory it was "
            f"extracted in"
        )
    if os.path.isdir(url):
        tree = _DirTree(url)
    elif os.path.isfile(url):
        tree = _open_zip(name, url, md5)
    else:
        raise FileNotFoundError(f"{name}: no file or directory {url!r} (archive['url'])")
    if not holds(tree):
        raise FileNotFoundError(f"{name}: {url!r} holds no {what} (the layout of Paddle's archive)")
    return tree


def _check_mode(name, mode):
    if mode not in ("train", "dev"):
        raise ValueError(f"{name}: argument 'mode' must be 'train' or 'dev', but got {mode!r}")


def _check_int(name, arg, value, low, high):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: argument '{arg}' must be an int, but got {type(value).__name__}")
    if not low <= value <= high:
        bound = f"between {low} and {high}" if high != float("inf") else f">= {low}"
        raise ValueError(f"{name}: argument '{arg}' must be {bound}, but got {value}")
    return int(value)


def _use_tree(dataset, tree):
    if tree.zip_path is not None:
        dataset._zip_path = tree.zip_path
