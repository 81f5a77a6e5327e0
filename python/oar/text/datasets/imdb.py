"""Imdb: movie-review sentiment (aclImdb_v1.tar.gz), read from a local archive."""

from __future__ import annotations

import collections
import re
import string
import tarfile

import numpy as np

from ...io import Dataset
from ._common import _local_file, _mode, _dictionary

__all__ = ["Imdb"]


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
