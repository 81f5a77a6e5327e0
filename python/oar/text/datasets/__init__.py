"""oar.text.datasets: Paddle's text datasets read from files you already have.

Nothing is downloaded: where Paddle would fetch a file (data_file=None and the like), oar
raises ValueError naming the argument and the file Paddle downloads, so you can fetch it
once yourself. The readers parse the same archives Paddle's do and build the same word
dictionaries and samples: UCIHousing (housing.data), Imdb (aclImdb_v1.tar.gz), Imikolov
(simple-examples.tgz), Conll05st (conll05st-tests.tar.gz and its dictionaries), Movielens
(ml-1m.zip), WMT14 (wmt14.tgz) and WMT16 (wmt16.tar.gz). Where Paddle numbers words by
iterating a set (Conll05st's labels, Movielens' categories and title words) the numbering
varies from run to run in Paddle; oar numbers them in order of first appearance. WMT16's
dictionaries count each language's own column (docs/compat.md lists where and why oar
departs from paddle.text)."""

from .conll05 import Conll05st
from .imdb import Imdb
from .imikolov import Imikolov
from .movielens import Movielens, MovieInfo, UserInfo  # noqa: F401 - the info classes too
from .uci_housing import UCIHousing
from .wmt14 import WMT14
from .wmt16 import WMT16

__all__ = ["UCIHousing", "Imdb", "Imikolov", "Conll05st", "Movielens", "WMT14", "WMT16"]
