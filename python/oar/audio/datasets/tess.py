"""TESS, the Toronto emotional speech set (Paddle's paddle.audio.datasets.TESS)."""

from __future__ import annotations

import os
from typing import NamedTuple

from .dataset import (
    AudioClassificationDataset,
    _check_feat,
    _check_int,
    _check_mode,
    _locate,
    _use_tree,
)

__all__ = ["TESS"]


class TESS(AudioClassificationDataset):
    """TESS: 200 target words in the carrier phrase "Say the word _", spoken by two
    actresses (aged 26 and 64) in seven emotions, 2,800 recordings (Toronto emotional
    speech set, https://doi.org/10.5683/SP2/E8H2MF).

    The data is Paddle's archive TESS_Toronto_emotional_speech_set.zip
    (``archive['url']``): every .wav file anywhere under
    TESS_Toronto_emotional_speech_set/, named speaker_word_emotion.wav. As in Paddle,
    file number k (0-based) of the walk over that folder (os.walk's order, unsorted; for
    a zip read in place, the archive's order stands for the directory listing) is in
    fold k % n_folds + 1: mode 'dev' is the fold `split`, mode 'train' the others.
    Sample i is (feature, label): the feature as AudioClassificationDataset describes
    it, the label the index of the emotion in `label_list`.

    oar downloads nothing. With the default `archive` (Paddle's URL) the files are read
    where Paddle leaves them: the tree extracted under DATA_HOME
    (~/.cache/paddle/dataset), else Paddle's downloaded zip there. Otherwise give
    ``archive={'url': path}``: a local copy of the zip (read in place, never extracted;
    checked against archive['md5'] if given) or the directory holding its extracted
    TESS_Toronto_emotional_speech_set/.

    Args:
        mode (str, optional): 'train' (default) or 'dev'.
        n_folds (int, optional): how many folds, >= 1. Default: 5.
        split (int, optional): the dev fold, 1 to n_folds. Default: 1.
        feat_type (str, optional): 'raw' (default), 'melspectrogram', 'mfcc',
            'logmelspectrogram' or 'spectrogram'.
        archive (dict, optional): {'url': ..., 'md5': ...}; None is Paddle's archive.
        **kwargs: the feature layer's arguments (e.g. n_mfcc=40), and `sample_rate`.

    Returns:
        Dataset: the samples of that mode and split.

    Examples:
        >>> import oar
        >>> ds = oar.audio.datasets.TESS(  # doctest: +SKIP
        ...     mode="dev", feat_type="mfcc", n_mfcc=40,
        ...     archive={"url": "/data/TESS_Toronto_emotional_speech_set.zip"})
        >>> feat, label = ds[0]  # doctest: +SKIP
    """

    archive = {
        "url": "https://bj.bcebos.com/paddleaudio/datasets/TESS_Toronto_emotional_speech_set.zip",
        "md5": "1465311b24d1de704c4c63e4ccc470c7",
    }

    label_list = [
        "angry",
        "disgust",
        "fear",
        "happy",
        "neutral",
        "ps",  # pleasant surprise
        "sad",
    ]

    audio_path = "TESS_Toronto_emotional_speech_set"

    class meta_info(NamedTuple):
        """What a file's name says: speaker_word_emotion.wav."""

        speaker: str
        word: str
        emotion: str

    def __init__(self, mode="train", n_folds=5, split=1, feat_type="raw", archive=None, **kwargs):
        name = "TESS"
        _check_mode(name, mode)
        n_folds = _check_int(name, "n_folds", n_folds, 1, float("inf"))
        split = _check_int(name, "split", split, 1, n_folds)
        _check_feat(name, feat_type, {k: v for k, v in kwargs.items() if k != "sample_rate"})
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, n_folds, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)
        _use_tree(self, self._tree)

    def _get_meta_info(self, files):
        rows = []
        for file in files:
            parts = os.path.basename(file)[: -len(".wav")].split("_")
            if len(parts) != len(self.meta_info._fields):
                raise ValueError(f"TESS: {file!r} is not named speaker_word_emotion.wav")
            rows.append(self.meta_info(*parts))
        return rows

    def _get_data(self, mode, n_folds, split):
        self._tree = _locate("TESS", self.archive, [(self.audio_path, "dir")])
        wav_files = [f for f in self._tree.walk_files(self.audio_path) if f.endswith(".wav")]
        files, labels = [], []
        for k, (file, row) in enumerate(zip(wav_files, self._get_meta_info(wav_files))):
            if row.emotion not in self.label_list:
                raise ValueError(
                    f"TESS: {file!r} names the emotion {row.emotion!r}, none of {self.label_list}"
                )
            if (k % n_folds + 1 == split) == (mode == "dev"):
                files.append(file)
                labels.append(self.label_list.index(row.emotion))
        return files, labels
