"""oar.vision.datasets: Paddle's image datasets read from files you already have.

Nothing is downloaded: where Paddle would fetch a file (data_file=None and the like), oar
raises ValueError naming the argument and the file Paddle downloads. The readers parse the
files Paddle's parse and give the same samples: MNIST and FashionMNIST (IDX files;
FashionMNIST defaults to Debian's dataset-fashion-mnist package), Cifar10 and Cifar100
(cifar-10-python.tar.gz, cifar-100-python.tar.gz), Flowers (102flowers.tgz,
imagelabels.mat, setid.mat), VOC2012 (VOCtrainval_11-May-2012.tar), and DatasetFolder /
ImageFolder (directory trees). The 'cv2' backend gives numpy arrays decoded by PIL: oar
does not use OpenCV (docs/vision.md lists where oar departs from paddle.vision.datasets).
"""

from .cifar import Cifar10, Cifar100
from .flowers import Flowers
from .folder import DatasetFolder, ImageFolder
from .mnist import FASHION_MNIST_DIR, MNIST, FashionMNIST, read_idx  # noqa: F401
from .voc2012 import VOC2012

__all__ = [
    "MNIST",
    "FashionMNIST",
    "read_idx",
    "Cifar10",
    "Cifar100",
    "Flowers",
    "DatasetFolder",
    "ImageFolder",
    "VOC2012",
]
