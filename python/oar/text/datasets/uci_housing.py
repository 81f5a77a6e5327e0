"""UCIHousing: Boston housing prices (Paddle's housing.data), read from a local file."""

from __future__ import annotations

import numpy as np

from ...io import Dataset
from ._common import _local_file, _mode

__all__ = ["UCIHousing"]


class UCIHousing(Dataset):
    """The Boston housing data: 13 features (each centred on its mean and divided by its
    range over the whole file) and the price; the first 80% of rows are 'train'."""

    URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"

    def __init__(self, data_file=None, mode="train", download=True):
        self.mode = _mode("UCIHousing", mode)
        self.data_file = _local_file("UCIHousing", data_file, self.URL)
        data = np.fromfile(self.data_file, sep=" ")
        if data.size == 0 or data.size % 14:
            raise ValueError(
                f"UCIHousing: {self.data_file!r} must hold rows of 14 numbers, "
                f"but holds {data.size} numbers"
            )
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
