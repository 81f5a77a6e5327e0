"""Movielens: MovieLens 1M ratings (ml-1m.zip), read from a local archive."""

from __future__ import annotations

import numbers
import re
import zipfile

import numpy as np

from ...io import Dataset
from ._common import _local_file, _mode, _first_seen

__all__ = ["MovieInfo", "UserInfo", "Movielens"]


_MOVIELENS_AGES = (1, 18, 25, 35, 45, 50, 56)


class MovieInfo:
    """A MovieLens movie: its id, its categories and its title (without the year)."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self, categories_dict, movie_title_dict):
        """[[id], category ids, ids of the lower-cased title words]."""
        return [
            [self.index],
            [categories_dict[c] for c in self.categories],
            [movie_title_dict[w.lower()] for w in self.title.split()],
        ]

    def __str__(self):
        return f"<MovieInfo id({self.index}), title({self.title}), categories({self.categories})>"

    __repr__ = __str__


class UserInfo:
    """A MovieLens user: id, gender, age bracket (its index among 1, 18, 25, 35, 45, 50,
    56) and occupation id."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == "M"
        if int(age) not in _MOVIELENS_AGES:
            raise ValueError(
                f"Movielens: user {self.index} has age {age!r}, which is none of "
                f"{list(_MOVIELENS_AGES)}"
            )
        self.age = _MOVIELENS_AGES.index(int(age))
        self.job_id = int(job_id)

    def value(self):
        """[[id], [0 if male else 1], [age bracket], [job id]]."""
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __str__(self):
        gender = "M" if self.is_male else "F"
        return (
            f"<UserInfo id({self.index}), gender({gender}), "
            f"age({_MOVIELENS_AGES[self.age]}), job({self.job_id})>"
        )

    __repr__ = __str__


class Movielens(Dataset):
    """MovieLens 1M ratings (ml-1m.zip: ml-1m/movies.dat, users.dat, ratings.dat).

    Args:
        data_file (str): the ml-1m.zip archive.
        mode (str): 'train' or 'test'.
        test_ratio (float): the chance that a rating goes to 'test'.
        rand_seed (int): seed of the split; each line of ratings.dat draws one number
            from numpy's legacy generator seeded with it (the stream Paddle draws).
        download (bool): ignored; oar never downloads.

    Each item is (user id, gender (0 male, 1 female), age bracket, job id, movie id,
    category ids, title word ids, rating): int64 arrays of shape [1] except the category
    and title arrays (one id per category / word), and the rating, float64 [1], mapped
    from 1..5 stars to 2 * stars - 5. The metadata is kept as in Paddle: movie_info (id
    -> MovieInfo), user_info (id -> UserInfo), categories_dict and movie_title_dict.
    """

    URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"

    def __init__(self, data_file=None, mode="train", test_ratio=0.1, rand_seed=0, download=True):
        self.mode = _mode("Movielens", mode)
        self.data_file = _local_file("Movielens", data_file, self.URL)
        if isinstance(test_ratio, bool) or not isinstance(test_ratio, numbers.Real):
            raise TypeError(
                f"Movielens: argument 'test_ratio' must be a number, but got "
                f"{type(test_ratio).__name__}"
            )
        self.test_ratio, self.rand_seed = test_ratio, rand_seed
        # A generator of its own draws the numbers Paddle's np.random.seed gives without
        # resetting the caller's global numpy state.
        try:
            rng = np.random.RandomState(rand_seed)
        except (TypeError, ValueError) as e:
            raise ValueError(
                f"Movielens: argument 'rand_seed' must be a seed for numpy's "
                f"RandomState, but got {rand_seed!r} ({e})"
            ) from None
        with zipfile.ZipFile(self.data_file) as z:
            self._read_movies(self._lines(z, "movies.dat"))
            self._read_users(self._lines(z, "users.dat"))
            self._read_ratings(self._lines(z, "ratings.dat"), rng)

    def _lines(self, z, name):
        member = f"ml-1m/{name}"
        try:
            f = z.open(member)
        except KeyError:
            raise ValueError(f"Movielens: {self.data_file!r} has no {member}") from None
        # Lines end at b"\n" alone (not at a lone b"\r"), as in Paddle's reader: the test
        # split draws once per line, so the line count must agree.
        with f:
            for line in f:
                yield line.decode("latin-1").strip()

    @staticmethod
    def _fields(line, n, what):
        parts = line.split("::")
        if len(parts) != n:
            raise ValueError(
                f"Movielens: a line of {what} must have {n} '::'-separated fields, but got {line!r}"
            )
        return parts

    def _read_movies(self, lines):
        year = re.compile(r"^(.*)\((\d+)\)$")
        self.movie_info = {}
        title_words, categories_seen = [], []
        for line in filter(None, lines):
            movie_id, title, categories = self._fields(line, 3, "movies.dat")
            m = year.match(title)
            if m is None:
                raise ValueError(f"Movielens: movie title {title!r} does not end in (year)")
            movie = MovieInfo(movie_id, categories.split("|"), m.group(1))
            self.movie_info[movie.index] = movie
            title_words.extend(w.lower() for w in movie.title.split())
            categories_seen.extend(movie.categories)
        self.movie_title_dict = _first_seen(title_words)
        self.categories_dict = _first_seen(categories_seen)

    def _read_users(self, lines):
        self.user_info = {}
        for line in filter(None, lines):
            uid, gender, age, job, _ = self._fields(line, 5, "users.dat")
            self.user_info[int(uid)] = UserInfo(uid, gender, age, job)

    def _read_ratings(self, lines, rng):
        self.data = []
        want_test = self.mode == "test"
        for line in lines:
            if (rng.random_sample() < self.test_ratio) != want_test or not line:
                continue
            uid, movie_id, stars, _ = self._fields(line, 4, "ratings.dat")
            user = self.user_info.get(int(uid))
            movie = self.movie_info.get(int(movie_id))
            if user is None or movie is None:
                raise ValueError(
                    f"Movielens: rating {line!r} names a user or movie missing "
                    f"from users.dat / movies.dat"
                )
            self.data.append(
                user.value()
                + movie.value(self.categories_dict, self.movie_title_dict)
                + [[float(stars) * 2 - 5.0]]
            )

    def __getitem__(self, idx):
        *ids, rating = self.data[idx]
        return (*(np.array(d, np.int64) for d in ids), np.array(rating, np.float64))

    def __len__(self):
        return len(self.data)
