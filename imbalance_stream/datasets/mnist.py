"""MNIST handwritten digits from the original IDX files (gzipped) of the data home's ``mnist/``."""

from __future__ import annotations

import gzip
import os
import struct

import numpy as np

from ._files.mnist import FILES
from .base import BenchmarkDataset

__all__ = ["MNIST", "read_idx"]


# IDX type codes (third byte of the magic number) -> numpy big-endian dtype.
_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: os.PathLike | str) -> np.ndarray:
    """Read an IDX file (``.gz`` or plain) into an array of the shape its header gives.

    Raises :class:`ValueError` when the magic number is not an IDX one or the size disagrees with
    the header.

    """
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as handle:
        data = handle.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _IDX_TYPES:
        raise ValueError(f"{os.fspath(path)}: not an IDX file (magic {data[:4]!r})")
    ndim = data[3]
    shape = struct.unpack(f">{ndim}I", data[4 : 4 + 4 * ndim])
    dtype = np.dtype(_IDX_TYPES[data[2]])
    offset = 4 + 4 * ndim
    expected = offset + int(np.prod(shape)) * dtype.itemsize
    if len(data) != expected:
        raise ValueError(
            f"{os.fspath(path)}: {len(data)} bytes, the header {shape} needs {expected}"
        )
    return np.frombuffer(data, dtype=dtype, offset=offset).reshape(shape)


class MNIST(BenchmarkDataset):
    """MNIST handwritten digits: 28 x 28 grey levels (0..255), 60,000 training / 10,000 test images.

    Features are the 784 pixels, named ``0..783`` in row-major order (pixel ``(r, c)`` is
    ``28 * r + c``), with the raw grey levels (not rescaled). Iteration yields only the non-zero
    pixels (about 150 per image), as in sparse River data. The images are cached in memory as
    ``uint8`` (47 MB for the training split); :meth:`to_numpy` returns a fresh ``float64`` copy
    (376 MB for the training split), so prefer iteration or slices for large runs.

    The default positive class is the digit ``8`` (LASVM seed 003: "MNIST-8", 5,851 positives in
    the training split); ``positive_class=None`` keeps the ten digits.

    Parameters
    ----------
    split
        ``"train"`` (60,000) or ``"test"`` (10,000).
    positive_class
        Digit(s) of the positive class (``8``); ``None`` keeps the ten digits.

    Examples
    --------
    >>> from imbalance_stream.datasets import MNIST
    >>> dataset = MNIST(split="test")
    >>> x, y = next(iter(dataset))
    >>> len(x), max(x.values()), y
    (116, 255.0, False)
    >>> int(dataset.raw_labels()[0])
    7

    """

    _SPLITS = {"train": 60000, "test": 10000}

    def __init__(self, split: str = "train", positive_class=8):
        if split not in self._SPLITS:
            raise ValueError(f"MNIST: unknown split {split!r}; choose from {sorted(self._SPLITS)}")
        self.split = split
        super().__init__(
            files=[FILES[f"{split}-images"], FILES[f"{split}-labels"]],
            positive_class=positive_class,
            n_features=784,
            n_samples=self._SPLITS[split],
            n_classes=10,
            sparse=True,
        )

    def _parse_key(self):
        return (self.split,)

    def _parse(self, paths):
        images, labels = read_idx(paths[0]), read_idx(paths[1])
        if images.shape[1:] != (28, 28) or len(images) != len(labels):
            raise ValueError(f"MNIST: unexpected shapes {images.shape} and {labels.shape}")
        return images.reshape(len(images), 784), labels.astype(np.int64), list(range(784))
