"""oar.text.datasets: Paddle's text datasets read from files you already have.

Nothing is downloaded: where Paddle would fetch the archive (data_file=None), oar raises
ValueError naming the file Paddle downloads, so you can fetch it once yourself. The
readers parse the same archives Paddle's do and build the same word dictionaries and
samples: UCIHousing (housing.data), Imdb (aclImdb_v1.tar.gz), Imikolov
(simple-examples.tgz). Conll05st, Movielens, WMT14 and WMT16 are not here yet
(docs/compat.md)."""
from __future__ import annotations

import collections
import os
import re
import string
import tarfile

import numpy as np

from ..io import Dataset

__all__ = ["UCIHousing", "Imdb", "Imikolov"]


def _local_file(name, data_file, paddle_url):
    if data_file is None:
        raise ValueError(f"{name}: give data_file, the local copy of {paddle_url} (what Paddle "
                         f"downloads); oar downloads nothing")
    if not isinstance(data_file, (str, os.PathLike)):
        raise TypeError(f"{name}: argument 'data_file' must be a path, but got "
                        f"{type(data_file).__name__}")
    if not os.path.isfile(data_file):
        raise FileNotFoundError(f"{name}: no file {os.fspath(data_file)!r}")
    return os.fspath(data_file)


def _mode(name, mode):
    if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
        raise ValueError(f"{name}: argument 'mode' must be 'train' or 'test', but got {mode!r}")
    return mode.lower()


def _dictionary(freq, cutoff):
    """Words seen more than cutoff times, most frequent first (ties alphabetical), numbered
    from 0; '<unk>' comes last."""
    kept = sorted(((w, c) for w, c in freq.items() if c > cutoff), key=lambda x: (-x[1], x[0]))
    word_idx = {w: i for i, (w, _) in enumerate(kept)}
    word_idx["<unk>"] = len(kept)
    return word_idx


class UCIHousing(Dataset):
    """The Boston housing data: 13 features (each centred on its mean and divided by its
    range over the whole file) and the price; the first 80% of rows are 'train'."""

    URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"

    def __init__(self, data_file=None, mode="train", download=True):
        self.mode = _mode("UCIHousing", mode)
        self.data_file = _local_file("UCIHousing", data_file, self.URL)
        data = np.fromfile(self.data_file, sep=" ")
        if data.size == 0 or data.size % 14:
            raise ValueError(f"UCIHousing: {self.data_file!r} must hold rows of 14 numbers, "
                             f"but holds {data.size} numbers")
        data = data.reshape(-1, 14)
        span = data.max(0) - data.min(0)
        span[span == 0] = 1
        data[:, :13] = (data[:, :13] - data[:, :13].mean(0)) / span[:13]
        cut = int(data.shape[0] * 0.8)
        self.data = data[:cut] if self.mode == "train" else data[cut:]
        self.dtype = "float32"

    def __getitem__(self, idx):
        row = self.data[idx]
        return row[:-1].astype(self.dtype), row[-1:].astype(self.dtype)

    def __len__(self):
        return len(self.data)


class Imdb(Dataset):
    """IMDB movie reviews (aclImdb_v1.tar.gz): each sample is (word ids, [label]) with
    label 0 for a positive review and 1 for a negative one. The dictionary (word_idx)
    holds the words seen more than cutoff times in train and test together, lower-cased
    without punctuation, as bytes (Paddle's keys), plus '<unk>'."""

    URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"

    def __init__(self, data_file=None, mode="train", cutoff=150, download=True):
        self.mode = _mode("Imdb", mode)
        self.data_file = _local_file("Imdb", data_file, self.URL)
        every = re.compile(r"aclImdb/(train|test)/(pos|neg)/.*\.txt$")
        freq = collections.Counter(w for doc in self._docs(every) for w in doc)
        self.word_idx = _dictionary(freq, cutoff)
        unk = self.word_idx["<unk>"]
        self.docs, self.labels = [], []
        for label, kind in ((0, "pos"), (1, "neg")):
            pattern = re.compile(rf"aclImdb/{self.mode}/{kind}/.*\.txt$")
            for doc in self._docs(pattern):
                self.docs.append([self.word_idx.get(w, unk) for w in doc])
                self.labels.append(label)

    def _docs(self, pattern):
        drop = string.punctuation.encode("latin-1")
        with tarfile.open(self.data_file) as tar:
            for member in tar:
                if pattern.match(member.name):
                    text = tar.extractfile(member).read().rstrip(b"\n\r")
                    yield text.translate(None, drop).lower().split()

    def __getitem__(self, idx):
        return np.array(self.docs[idx]), np.array([self.labels[idx]])

    def __len__(self):
        return len(self.docs)


class Imikolov(Dataset):
    """The Penn Treebank language-model data (simple-examples.tgz). data_type 'NGRAM':
    samples are window_size consecutive word ids of each sentence framed by <s> and <e>;
    'SEQ': (source, target) = (<s> + sentence, sentence + <e>), sentences longer than
    window_size (when > 0) left out. The dictionary holds the words seen more than
    min_word_freq times in the train and valid files."""

    URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"

    def __init__(self, data_file=None, data_type="NGRAM", window_size=-1, mode="train",
                 min_word_freq=50, download=True):
        if not isinstance(data_type, str) or data_type.upper() not in ("NGRAM", "SEQ"):
            raise ValueError(f"Imikolov: argument 'data_type' must be 'NGRAM' or 'SEQ', but got "
                             f"{data_type!r}")
        self.data_type = data_type.upper()
        self.mode = _mode("Imikolov", mode)
        if self.data_type == "NGRAM" and window_size < 0:
            raise ValueError("Imikolov: data_type 'NGRAM' needs a window_size >= 0")
        self.window_size, self.min_word_freq = window_size, min_word_freq
        self.data_file = _local_file("Imikolov", data_file, self.URL)
        freq = collections.Counter()
        for part in ("train", "valid"):
            for line in self._lines(part):
                freq.update(line.split())
                freq.update(("<s>", "<e>"))
        freq.pop("<unk>", None)
        self.word_idx = _dictionary(freq, min_word_freq)
        unk = self.word_idx["<unk>"]
        self.data = []
        for line in self._lines(self.mode):
            words = line.split()
            if self.data_type == "NGRAM":
                ids = [self.word_idx.get(w, unk) for w in ["<s>", *words, "<e>"]]
                w = self.window_size
                self.data.extend(tuple(ids[i - w:i]) for i in range(w, len(ids) + 1))
            else:
                ids = [self.word_idx.get(w, unk) for w in words]
                src = [self.word_idx["<s>"], *ids]
                if self.window_size > 0 and len(src) > self.window_size:
                    continue
                self.data.append((src, [*ids, self.word_idx["<e>"]]))

    def _lines(self, part):
        name = f"./simple-examples/data/ptb.{part}.txt"
        with tarfile.open(self.data_file) as tar:
            try:
                f = tar.extractfile(name)
            except KeyError:
                raise ValueError(f"Imikolov: {self.data_file!r} has no {name}") from None
            return [line.decode().strip() for line in f]

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
