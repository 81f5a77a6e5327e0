"""Imikolov: the PTB language-model data (simple-examples.tgz), read from a local archive."""

from __future__ import annotations

import collections
import tarfile

import numpy as np

from ...io import Dataset
from ._common import _local_file, _mode, _dictionary

__all__ = ["Imikolov"]


class Imikolov(Dataset):
    """The Penn Treebank language-model data (simple-examples.tgz). data_type 'NGRAM':
    samples are window_size consecutive word ids of each sentence framed by <s> and <e>;
    'SEQ': (source, target) = (<s> + sentence, sentence + <e>), sentences longer than
    window_size (when > 0) left out. The dictionary holds the words seen more than
    min_word_freq times in the train and valid files."""

    URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"

    def __init__(
        self,
        data_file=None,
        data_type="NGRAM",
        window_size=-1,
        mode="train",
        min_word_freq=50,
        download=True,
    ):
        if not isinstance(data_type, str) or data_type.upper() not in ("NGRAM", "SEQ"):
            raise ValueError(
                f"Imikolov: argument 'data_type' must be 'NGRAM' or 'SEQ', but got {data_type!r}"
            )
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
                self.data.extend(tuple(ids[i - w : i]) for i in range(w, len(ids) + 1))
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
