"""ESC-50, environmental sound classification (Paddle's paddle.audio.datasets.ESC50)."""

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

__all__ = ["ESC50"]


class ESC50(AudioClassificationDataset):
    """ESC-50: 2,000 five-second recordings of 50 classes of environmental sound, 40 per
    class, in five folds (Piczak, "ESC: Dataset for Environmental Sound Classification",
    2015, http://dx.doi.org/10.1145/2733373.2806390).

    The data is Paddle's archive ESC-50-master.zip (``archive['url']``), whose
    ESC-50-master/meta/esc50.csv gives each file of ESC-50-master/audio/ its fold and
    target. Mode 'dev' is the fold `split`, mode 'train' the other four, in the csv's
    order. Sample i is (feature, label): the feature as AudioClassificationDataset
    describes it ('raw': the float32 waveform, [220500] for the real files), the label
    the int target 0-49 (an index into `label_list`).

    oar downloads nothing. With the default `archive` (Paddle's URL) the files are read
    where Paddle leaves them: the tree extracted under DATA_HOME
    (~/.cache/paddle/dataset), else Paddle's downloaded zip there. Otherwise give
    ``archive={'url': path}``: a local copy of the zip (read in place, never extracted;
    checked against archive['md5'] if given) or the directory holding its extracted
    ESC-50-master/.

    Args:
        mode (str, optional): 'train' (default) or 'dev'.
        split (int, optional): the dev fold, 1 to 5. Default: 1.
        feat_type (str, optional): 'raw' (default), 'melspectrogram', 'mfcc',
            'logmelspectrogram' or 'spectrogram'.
        archive (dict, optional): {'url': ..., 'md5': ...}; None is Paddle's archive.
        **kwargs: the feature layer's arguments (e.g. n_mfcc=40), and `sample_rate`.

    Returns:
        Dataset: the samples of that mode and split.

    Examples:
        >>> import oar
        >>> ds = oar.audio.datasets.ESC50(  # doctest: +SKIP
        ...     mode="dev", archive={"url": "/data/ESC-50-master.zip"})
        >>> audio, label = ds[0]  # doctest: +SKIP
        >>> print(audio.shape, label)  # doctest: +SKIP
        [220500] 0
    """

    archive = {
        "url": "https://paddleaudio.bj.bcebos.com/datasets/ESC-50-master.zip",
        "md5": "7771e4b9d86d0945acce719c7a59305a",
    }

    label_list = [
        # animals
        "Dog",
        "Rooster",
        "Pig",
        "Cow",
        "Frog",
        "Cat",
        "Hen",
        "Insects (flying)",
        "Sheep",
        "Crow",
        # natural soundscapes and water sounds
        "Rain",
        "Sea waves",
        "Crackling fire",
        "Crickets",
        "Chirping birds",
        "Water drops",
        "Wind",
        "Pouring water",
        "Toilet flush",
        "Thunderstorm",
        # human, non-speech sounds
        "Crying baby",
        "Sneezing",
        "Clapping",
        "Breathing",
        "Coughing",
        "Footsteps",
        "Laughing",
        "Brushing teeth",
        "Snoring",
        "Drinking, sipping",
        # interior and domestic sounds
        "Door knock",
        "Mouse click",
        "Keyboard typing",
        "Door, wood creaks",
        "Can opening",
        "Washing machine",
        "Vacuum cleaner",
        "Clock alarm",
        "Clock tick",
        "Glass breaking",
        # exterior and urban noises
        "Helicopter",
        "Chainsaw",
        "Siren",
        "Car horn",
        "Engine",
        "Train",
        "Church bells",
        "Airplane",
        "Fireworks",
        "Hand saw",
    ]
    meta = os.path.join("ESC-50-master", "meta", "esc50.csv")
    audio_path = os.path.join("ESC-50-master", "audio")

    class meta_info(NamedTuple):
        """A row of esc50.csv."""

        filename: str
        fold: str
        target: str
        category: str
        esc10: str
        src_file: str
        take: str

    def __init__(self, mode="train", split=1, feat_type="raw", archive=None, **kwargs):
        name = "ESC50"
        _check_mode(name, mode)
        split = _check_int(name, "split", split, 1, 5)
        _check_feat(name, feat_type, {k: v for k, v in kwargs.items() if k != "sample_rate"})
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)
        _use_tree(self, self._tree)

    def _get_meta_info(self):
        rows = []
        lines = self._tree.read_text(self.meta).splitlines()
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            fields = line.strip().split(",")
            if len(fields) != len(self.meta_info._fields):
                raise ValueError(
                    f"ESC50: line {number} of {self._tree.path(self.meta)!r} has "
                    f"{len(fields)} comma-separated fields, not "
                    f"{len(self.meta_info._fields)} "
                    f"({','.join(self.meta_info._fields)})"
                )
            rows.append(self.meta_info(*fields))
        return rows

    def _get_data(self, mode, split):
        self._tree = _locate("ESC50", self.archive, [(self.audio_path, "dir"), (self.meta, "file")])
        files, labels = [], []
        for row in self._get_meta_info():
            try:
                fold, target = int(row.fold), int(row.target)
            except ValueError:
                raise ValueError(
                    f"ESC50: {self._tree.path(self.meta)!r} gives {row.filename!r} "
                    f"the fold {row.fold!r} and target {row.target!r}, which are "
                    f"not ints"
                ) from None
            if (fold == split) == (mode == "dev"):
                files.append(self._tree.path(os.path.join(self.audio_path, row.filename)))
                labels.append(target)
        return files, labels
