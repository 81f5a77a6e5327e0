"""WMT16: the English-German translation data (wmt16.tar.gz), read from a local archive."""

from __future__ import annotations

import collections
import tarfile

import numpy as np

from ...io import Dataset
from ._common import _local_file, _mode, _dict_size, _tar_member, _mark_id, _START, _END, _UNK

__all__ = ["WMT16"]


class WMT16(Dataset):
    """The English-German Multi30K data of WMT16 (wmt16.tar.gz: wmt16/train, wmt16/test,
    wmt16/val, each line 'english<TAB>german').

    Args:
        data_file (str): the wmt16.tar.gz archive.
        mode (str): 'train', 'test' or 'val'.
        src_dict_size (int): source dictionary size (must be set; capped at 11250 words
            for English, 19220 for German, as in Paddle).
        trg_dict_size (int): target dictionary size (must be set; capped likewise).
        lang (str): the source language, 'en' or 'de'.
        download (bool): ignored; oar never downloads.

    Each language's dictionary is <s>, <e>, <unk> (ids 0, 1, 2) and then that language's
    most frequent words in wmt16/train (ties in order of first appearance), size entries
    in all. Each item is three int64 arrays: the source ids framed by <s> and <e>, the
    target ids after <s>, and the target ids followed by <e>; unknown words get <unk>.
    """

    URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"
    _TOTAL_WORDS = {"en": 11250, "de": 19220}

    def __init__(
        self,
        data_file=None,
        mode="train",
        src_dict_size=-1,
        trg_dict_size=-1,
        lang="en",
        download=True,
    ):
        self.mode = _mode("WMT16", mode, ("train", "test", "val"))
        self.data_file = _local_file("WMT16", data_file, self.URL)
        if lang not in ("en", "de"):
            raise ValueError(f"WMT16: argument 'lang' must be 'en' or 'de', but got {lang!r}")
        self.lang = lang
        trg_lang = "de" if lang == "en" else "en"
        self.src_dict_size = min(
            _dict_size("WMT16", "src_dict_size", src_dict_size), self._TOTAL_WORDS[lang]
        )
        self.trg_dict_size = min(
            _dict_size("WMT16", "trg_dict_size", trg_dict_size), self._TOTAL_WORDS[trg_lang]
        )
        with tarfile.open(self.data_file) as tar:
            train = self._pairs(tar, "train")
            self._vocab = {
                lang: self._vocabulary(train, lang, self.src_dict_size),
                trg_lang: self._vocabulary(train, trg_lang, self.trg_dict_size),
            }
            pairs = train if self.mode == "train" else self._pairs(tar, self.mode)
        self.src_dict = self.get_dict(lang)
        self.trg_dict = self.get_dict(trg_lang)
        # The marks come from the source dictionary for both sides, as in Paddle (both
        # dictionaries start with the same three).
        start, end, unk = (
            _mark_id("WMT16", self.src_dict, m, "source") for m in (_START, _END, _UNK)
        )
        src_col = 0 if lang == "en" else 1
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for pair in pairs:
            src = [self.src_dict.get(w, unk) for w in pair[src_col].split()]
            trg = [self.trg_dict.get(w, unk) for w in pair[1 - src_col].split()]
            self.src_ids.append([start, *src, end])
            self.trg_ids.append([start, *trg])
            self.trg_ids_next.append([*trg, end])

    def _pairs(self, tar, part):
        f = _tar_member("WMT16", tar, self.data_file, f"wmt16/{part}")
        pairs = (line.decode().strip().split("\t") for line in f)
        return [p for p in pairs if len(p) == 2]

    @staticmethod
    def _vocabulary(pairs, lang, size):
        # Each language's words are counted in its own column: the reader of
        # paddle.dataset.wmt16 does so, while paddle.text.WMT16 counts the source column
        # for both dictionaries (and caches them under ~/.cache, which oar does not).
        col = 0 if lang == "en" else 1
        counts = collections.Counter(w for p in pairs for w in p[col].split())
        ranked = sorted(counts.items(), key=lambda wc: -wc[1])
        return [_START, _END, _UNK, *(w for w, _ in ranked[: max(size - 3, 0)])]

    def __getitem__(self, idx):
        return (
            np.array(self.src_ids[idx], np.int64),
            np.array(self.trg_ids[idx], np.int64),
            np.array(self.trg_ids_next[idx], np.int64),
        )

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, lang, reverse=False):
        """The word dictionary of one language.

        Args:
            lang (str): 'en' or 'de'.
            reverse (bool): if True, map ids to words instead of words to ids.

        Returns:
            dict: the dictionary (a new dict on each call).
        """
        if lang not in self._vocab:
            raise ValueError(
                f"WMT16.get_dict: argument 'lang' must be 'en' or 'de', but got {lang!r}"
            )
        words = self._vocab[lang]
        if reverse:
            return dict(enumerate(words))
        return {w: i for i, w in enumerate(words)}
