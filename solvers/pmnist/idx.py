"""Read MNIST from its four standard IDX files, plain or gzipped, in a directory the user names.

This is the toolkit's one file reader outside ``reports``: it lives beside the solvers
because the network experiment's samples run on workers (local processes or a dask cluster),
and each worker loads the images where it runs, once per process (:func:`load_mnist` is
cached), instead of receiving tens of megabytes of pixels with every job. It only reads;
every problem with a file is one ValueError line naming the file.

The IDX format: two zero bytes, a type code (0x08 unsigned byte, 0x09 signed byte, 0x0B
int16, 0x0C int32, 0x0D float32, 0x0E float64), the number of dimensions, then each
dimension as a big-endian uint32, then the values, big-endian, row-major.

Examples
--------
>>> import gzip, tempfile, pathlib
>>> header = bytes([0, 0, 0x08, 1]) + (3).to_bytes(4, "big")
>>> with tempfile.TemporaryDirectory() as d:
...     path = pathlib.Path(d) / "labels.gz"
...     _ = path.write_bytes(gzip.compress(header + bytes([7, 0, 9])))
...     read_idx(path).tolist()
[7, 0, 9]
"""
from __future__ import annotations

import functools
import gzip
import zlib
from pathlib import Path
from typing import Union

import numpy as np

from tasksim.errors import InputError

__all__ = ["MNIST_FILES", "read_idx", "load_mnist"]

MNIST_FILES: tuple[str, ...] = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
"""The standard names of MNIST's files (each may also be stored gzipped, with ``.gz``)."""

_TYPES = {0x08: np.dtype("u1"), 0x09: np.dtype("i1"), 0x0B: np.dtype(">i2"),
          0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
_GZIP_MAGIC = b"\x1f\x8b"


def _file_bytes(path: Path) -> bytes:
    """The bytes of ``path``, decompressed when it is gzipped (by content, not by name)."""
    try:
        raw = path.read_bytes()
    except OSError as problem:
        raise InputError(f"cannot read {path}: {problem.strerror or problem}") from None
    if not raw.startswith(_GZIP_MAGIC):
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as problem:
        raise InputError(f"{path} is a corrupt gzip file ({problem or type(problem).__name__})"
                         ) from None


def read_idx(path: Union[str, Path]) -> np.ndarray:
    """The array stored in the IDX file ``path`` (plain or gzipped), in native byte order.

    Raises ValueError (one line naming the file) for a file that cannot be read, a corrupt
    gzip stream, a bad magic number, or data that do not match the header's shape.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "bad"
    ...     _ = path.write_bytes(b"not an idx file")
    ...     read_idx(path)                                 # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tasksim.errors.InputError: .../bad is not an IDX file (magic number 0x6e6f7420)
    """
    path = Path(path)
    data = _file_bytes(path)
    if len(data) < 4:
        raise InputError(f"{path} is not an IDX file (only {len(data)} bytes)")
    magic = int.from_bytes(data[:4], "big")
    if data[0] != 0 or data[1] != 0 or data[2] not in _TYPES or data[3] == 0:
        raise InputError(f"{path} is not an IDX file (magic number 0x{magic:08x})")
    dtype, ndim = _TYPES[data[2]], data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise InputError(f"{path} is truncated: its header announces {ndim} dimensions")
    shape = tuple(int.from_bytes(data[4 + 4 * k: 8 + 4 * k], "big") for k in range(ndim))
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    found = len(data) - header
    if found != expected:
        what = "truncated" if found < expected else "longer than its header says"
        raise InputError(f"{path} is {what}: shape {shape} needs {expected} bytes of data, "
                         f"found {found}")
    values = np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)
    return values.astype(dtype.newbyteorder("="))


def _find(directory: Path, name: str) -> Path:
    for candidate in (directory / name, directory / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    raise InputError(f"MNIST file {name} (or {name}.gz) not found in {directory}")


@functools.lru_cache(maxsize=2)
def load_mnist(directory: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train images, train labels, test images, test labels) from the four MNIST IDX files
    in ``directory``: images as float32 rows (one per image) scaled from 0-255 to [0, 1],
    labels as int64. Cached per process and directory.

    Checks that images are unsigned bytes of two dimensions each, that labels are digits
    0-9, and that each set has as many labels as images; every failure is one ValueError
    line naming the file.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise InputError(f"MNIST directory {folder} does not exist or is not a directory")
    arrays = []
    for name in MNIST_FILES:
        path = _find(folder, name)
        values = read_idx(path)
        if "images" in name:
            if values.dtype != np.uint8 or values.ndim != 3:
                raise InputError(f"{path} does not hold images: expected unsigned bytes of "
                                 f"shape (n, rows, cols), found {values.dtype} {values.shape}")
            values = values.reshape(len(values), -1).astype(np.float32) / np.float32(255.0)
        else:
            if values.ndim != 1 or values.dtype.kind not in "iu":
                raise InputError(f"{path} does not hold labels: expected integers of shape "
                                 f"(n,), found {values.dtype} {values.shape}")
            if values.size and (values.min() < 0 or values.max() > 9):
                raise InputError(f"{path} holds labels outside 0-9 "
                                 f"({int(values.min())} to {int(values.max())})")
            values = values.astype(np.int64)
        arrays.append(values)
    for images, labels, name in ((arrays[0], arrays[1], MNIST_FILES[1]),
                                 (arrays[2], arrays[3], MNIST_FILES[3])):
        if len(images) != len(labels):
            raise InputError(f"{name} has {len(labels)} labels for {len(images)} images")
    if arrays[0].shape[1] != arrays[2].shape[1]:
        raise InputError(f"training and test images differ in size ({arrays[0].shape[1]} and "
                         f"{arrays[2].shape[1]} pixels)")
    return arrays[0], arrays[1], arrays[2], arrays[3]
