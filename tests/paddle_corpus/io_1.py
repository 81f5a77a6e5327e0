# A map-style dataset batched by DataLoader.
import numpy as np
import paddle
from paddle.io import Dataset, DataLoader

class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return np.array([i], dtype="float32"), np.array([i * i], dtype="int64")

loader = DataLoader(Squares(), batch_size=4, shuffle=False, drop_last=False)
for xb, yb in loader:
    print(list(xb.shape), yb.numpy().reshape(-1).tolist())
print(len(loader))
