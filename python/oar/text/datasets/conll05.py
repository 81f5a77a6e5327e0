"""Conll05st: CoNLL-2005 semantic role labelling (conll05st-tests.tar.gz and its dictionaries), read from local files."""

from __future__ import annotations

import gzip
import tarfile

import numpy as np

from ...io import Dataset
from ._common import _local_file, _tar_member, _first_seen

__all__ = ["Conll05st"]


class Conll05st(Dataset):
    """The CoNLL-2005 semantic role labelling test set (the WSJ part of
    conll05st-tests.tar.gz), one sample per (sentence, predicate).

    Args:
        data_file (str): the conll05st-tests.tar.gz archive.
        word_dict_file (str): word dictionary, one word per line (line number = id).
        verb_dict_file (str): predicate dictionary, one verb per line.
        target_dict_file (str): the argument labels; each tag X of a B-X or I-X line gets
            ids 2k (B-X) and 2k+1 (I-X) in order of first appearance, and 'O' comes last.
        emb_file (str): the word embedding file, only handed back by get_embedding.
        download (bool): ignored; oar never downloads.

    Each item is nine int64 arrays of the sentence's length: word ids, the ids of the
    words two before, one before, at, one after and two after the predicate (each
    repeated over the sentence; 'bos'/'eos' past the ends), the predicate id (repeated),
    the 0/1 mark of the five-word window around the predicate, and the label ids.
    Words missing from the word dictionary get id 0, as in Paddle.
    """

    DATA_URL = "http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz"
    WORDDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt"
    VERBDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt"
    TRGDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt"
    EMB_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2Femb"
    _WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
    _PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"

    def __init__(
        self,
        data_file=None,
        word_dict_file=None,
        verb_dict_file=None,
        target_dict_file=None,
        emb_file=None,
        download=True,
    ):
        name = "Conll05st"
        self.data_file = _local_file(name, data_file, self.DATA_URL)
        self.word_dict_file = _local_file(name, word_dict_file, self.WORDDICT_URL, "word_dict_file")
        self.verb_dict_file = _local_file(name, verb_dict_file, self.VERBDICT_URL, "verb_dict_file")
        self.target_dict_file = _local_file(
            name, target_dict_file, self.TRGDICT_URL, "target_dict_file"
        )
        self.emb_file = _local_file(name, emb_file, self.EMB_URL, "emb_file")
        self.word_dict = self._line_ids(self.word_dict_file)
        self.predicate_dict = self._line_ids(self.verb_dict_file)
        self.label_dict = self._bio_ids(self.target_dict_file)
        self.sentences, self.predicates, self.labels = [], [], []
        self._read_sentences()

    @staticmethod
    def _line_ids(path):
        # A repeated line keeps its last line number, as Paddle's reader gives.
        with open(path, encoding="utf-8") as f:
            return {line.strip(): i for i, line in enumerate(f)}

    @staticmethod
    def _bio_ids(path):
        with open(path, encoding="utf-8") as f:
            tags = _first_seen(line.strip()[2:] for line in f if line.strip()[:2] in ("B-", "I-"))
        ids = {}
        for tag, k in tags.items():
            ids[f"B-{tag}"], ids[f"I-{tag}"] = 2 * k, 2 * k + 1
        ids["O"] = 2 * len(tags)
        return ids

    def _read_sentences(self):
        with (
            tarfile.open(self.data_file) as tar,
            gzip.GzipFile(
                fileobj=_tar_member("Conll05st", tar, self.data_file, self._WORDS)
            ) as words,
            gzip.GzipFile(
                fileobj=_tar_member("Conll05st", tar, self.data_file, self._PROPS)
            ) as props,
        ):
            sentence, rows = [], []
            # A blank props line ends a sentence; like Paddle, a last sentence with no
            # blank line after it is not a sample, and the shorter file ends the reading.
            for word, row in zip(words, props):
                row = row.decode().split()
                if row:
                    sentence.append(word.strip().decode())
                    rows.append(row)
                elif rows:
                    self._add_sentence(sentence, rows)
                    sentence, rows = [], []

    def _add_sentence(self, sentence, rows):
        if any(len(r) != len(rows[0]) for r in rows):
            raise ValueError(
                f"Conll05st: the props of sentence {' '.join(sentence)!r} do not "
                f"have the same number of columns on every line"
            )
        columns = list(zip(*rows))
        verbs = [v for v in columns[0] if v != "-"]
        if len(verbs) < len(columns) - 1:
            raise ValueError(
                f"Conll05st: sentence {' '.join(sentence)!r} has "
                f"{len(columns) - 1} argument columns but {len(verbs)} verbs"
            )
        for verb, column in zip(verbs, columns[1:]):
            self.sentences.append(sentence)
            self.predicates.append(verb)
            self.labels.append(self._bio(column))

    @staticmethod
    def _bio(column):
        """Bracketed spans ('(A0*', '*', '*)', '(V*)') as B-/I-/O tags."""
        tags, tag, inside = [], "O", False
        for tok in column:
            if tok == "*":
                tags.append(f"I-{tag}" if inside else "O")
            elif tok == "*)":
                tags.append(f"I-{tag}")
                inside = False
            elif "(" in tok:
                tag = tok[1 : tok.find("*")]
                tags.append(f"B-{tag}")
                inside = ")" not in tok
            else:
                raise ValueError(f"Conll05st: unexpected label {tok!r} in the props file")
        return tags

    def __getitem__(self, idx):
        sentence, verb, tags = self.sentences[idx], self.predicates[idx], self.labels[idx]
        n = len(sentence)
        if "B-V" not in tags:
            raise ValueError(f"Conll05st: sample {idx} marks no verb (B-V)")
        v = tags.index("B-V")
        if verb not in self.predicate_dict:
            raise ValueError(
                f"Conll05st: predicate {verb!r} of sample {idx} is not in {self.verb_dict_file!r}"
            )
        unknown = [t for t in tags if t not in self.label_dict]
        if unknown:
            raise ValueError(
                f"Conll05st: label {unknown[0]!r} of sample {idx} is not in "
                f"{self.target_dict_file!r}"
            )
        mark = np.zeros(n, np.int64)
        mark[max(v - 2, 0) : v + 3] = 1
        context = []
        for k in (-2, -1, 0, 1, 2):
            word = sentence[v + k] if 0 <= v + k < n else ("bos" if k < 0 else "eos")
            context.append(np.full(n, self.word_dict.get(word, 0), np.int64))
        words = np.array([self.word_dict.get(w, 0) for w in sentence], np.int64)
        pred = np.full(n, self.predicate_dict[verb], np.int64)
        labels = np.array([self.label_dict[t] for t in tags], np.int64)
        return (words, *context, pred, mark, labels)

    def __len__(self):
        return len(self.sentences)

    def get_dict(self):
        """The word, predicate and label dictionaries (word -> id).

        Returns:
            tuple: (word_dict, predicate_dict, label_dict).
        """
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        """The path of the embedding file given as emb_file.

        Returns:
            str: emb_file.
        """
        return self.emb_file
