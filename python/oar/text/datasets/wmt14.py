"""WMT14: the English-French translation data (wmt14.tgz), read from a local archive."""

from __future__ import annotations

import tarfile

import numpy as np

from ...io import Dataset
from ._common import _local_file, _mode, _dict_size, _mark_id, _START, _END

__all__ = ["WMT14"]


class WMT14(Dataset):
    """The French-English WMT14 subset Paddle ships (wmt14.tgz): src.dict, trg.dict and
    the tab-separated sentence pairs of train/train, test/test and gen/gen.

    Args:
        data_file (str): the wmt14.tgz archive.
        mode (str): 'train', 'test' or 'gen'.
        dict_size (int): how many lines of each dictionary file to use (must be set:
            Paddle's default of -1 is refused, as Paddle does).
        download (bool): ignored; oar never downloads.

    Each item is three int64 arrays: the source ids framed by <s> and <e>, the target ids
    after <s>, and the target ids followed by <e>. Words outside the dictionaries get id
    2 (Paddle's <unk>); pairs whose source (with <s>, <e>) or target is over 80 words are
    left out.
    """

    URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"

    def __init__(self, data_file=None, mode="train", dict_size=-1, download=True):
        self.mode = _mode("WMT14", mode, ("train", "test", "gen"))
        self.data_file = _local_file("WMT14", data_file, self.URL)
        self.dict_size = _dict_size("WMT14", "dict_size", dict_size)
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with tarfile.open(self.data_file) as tar:
            files = [m for m in tar.getmembers() if m.isfile()]
            self.src_dict = self._head_dict(tar, files, "src.dict")
            self.trg_dict = self._head_dict(tar, files, "trg.dict")
            for m in files:
                if m.name.endswith(f"{self.mode}/{self.mode}"):
                    self._read_pairs(tar.extractfile(m))

    def _head_dict(self, tar, files, suffix):
        found = [m for m in files if m.name.endswith(suffix)]
        if len(found) != 1:
            raise ValueError(
                f"WMT14: {self.data_file!r} must hold one file named *{suffix}, "
                f"but holds {len(found)}"
            )
        ids = {}
        for i, line in enumerate(tar.extractfile(found[0])):
            if i >= self.dict_size:
                break
            ids[line.strip().decode()] = i
        return ids

    def _read_pairs(self, f):
        unk = 2
        for line in f:
            pair = line.decode().strip().split("\t")
            if len(pair) != 2:
                continue
            src = [self.src_dict.get(w, unk) for w in [_START, *pair[0].split(), _END]]
            trg = [self.trg_dict.get(w, unk) for w in pair[1].split()]
            if len(src) > 80 or len(trg) > 80:
                continue
            self.src_ids.append(src)
            self.trg_ids.append([_mark_id("WMT14", self.trg_dict, _START, "target"), *trg])
            self.trg_ids_next.append([*trg, _mark_id("WMT14", self.trg_dict, _END, "target")])

    def __getitem__(self, idx):
        return (
            np.array(self.src_ids[idx], np.int64),
            np.array(self.trg_ids[idx], np.int64),
            np.array(self.trg_ids_next[idx], np.int64),
        )

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, reverse=False):
        """The source and target dictionaries.

        Args:
            reverse (bool): if True, map ids to words instead of words to ids.

        Returns:
            tuple: (source dictionary, target dictionary).
        """
        if reverse:
            return (
                {i: w for w, i in self.src_dict.items()},
                {i: w for w, i in self.trg_dict.items()},
            )
        return self.src_dict, self.trg_dict
