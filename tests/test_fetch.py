"""`imbalance-stream data fetch`: downloads from a local HTTP server (never the network), checksums,
transforms (gzip, a line range), refusal of wrong bytes, and the table of sources."""

import bz2
import contextlib
import functools
import gzip
import hashlib
import http.server
import pathlib
import threading

import pytest

from imbalance_stream import cli
from imbalance_stream.datasets import DataFile, MissingDataFile, fetch
from imbalance_stream.datasets.base import ChecksumError, get_data_home


@contextlib.contextmanager
def serve(folder: pathlib.Path):
    """An HTTP server on 127.0.0.1 serving ``folder``; yields its base URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None  # quiet
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def mirror_path(mirror: pathlib.Path, url: str) -> pathlib.Path:
    """Where a mirror (``--base-url``) holds the file of ``url``."""
    path = mirror.joinpath(*url.split("://", 1)[1].split("/"))
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_every_loader_file_has_one_source():
    from imbalance_stream.datasets import koil, libsvm_datasets, mnist, uci

    files = [*libsvm_datasets.FILES.values(), *uci.FILES.values(), *mnist.FILES.values()]
    for name in sorted(set(koil.DATASETS) | set(koil.FOLDS_ONLY)):
        files += koil.koil_files(name)
    assert {f.path for f in files} == set(fetch.SOURCES)
    for source in fetch.SOURCES.values():
        assert source.url.startswith("https://")
        assert source.transform in ("copy", "gzip") or source.transform.startswith("gzip-from")
        assert fetch.fetch_name_of(source.path)  # every file can be fetched by name


def test_unknown_name_suggests():
    with pytest.raises(KeyError, match="did you mean 'a9a'"):
        fetch.sources_of("a9b")


def test_fetch_checks_and_transforms_without_the_data_home(tmp_path):
    """A made-up table: a gzip transform and a line range, checked by content."""
    body = b"".join(b"%d 1:0.5\n" % i for i in range(10))
    tail = b"".join(b"%d 1:0.5\n" % i for i in range(4, 10))
    plain = DataFile("x/plain.txt", hashlib.sha256(body).hexdigest(), "https://example.org/p")
    packed = DataFile(
        "x/packed.gz",
        "0" * 64,
        "https://example.org/p",
        content_sha256=hashlib.sha256(body).hexdigest(),
    )
    part = DataFile(
        "x/part.gz",
        "0" * 64,
        "https://example.org/p",
        content_sha256=hashlib.sha256(tail).hexdigest(),
    )
    table = {
        "plain": [fetch.Source(plain, "https://example.org/data/p.txt")],
        "packed": [fetch.Source(packed, "https://example.org/data/p.txt", "gzip")],
        "part": [fetch.Source(part, "https://example.org/data/p.txt", "gzip-from-line:5")],
    }
    mirror = tmp_path / "mirror"
    mirror_path(mirror, "https://example.org/data/p.txt").write_bytes(body)
    home = tmp_path / "home"
    with serve(mirror) as url:
        for sources in table.values():
            for source in sources:
                fetch._fetch_one(source, home, base_url=url, force=False, timeout=10, log=None)
    assert (home / "x" / "plain.txt").read_bytes() == body
    assert gzip.decompress((home / "x" / "packed.gz").read_bytes()) == body
    assert gzip.decompress((home / "x" / "part.gz").read_bytes()) == tail


def test_a_wrong_download_is_refused_and_not_left_behind(tmp_path):
    expected = DataFile("x/f.txt", hashlib.sha256(b"right\n").hexdigest(), "https://example.org")
    source = fetch.Source(expected, "https://example.org/f.txt")
    mirror = tmp_path / "mirror"
    mirror_path(mirror, source.url).write_bytes(b"wrong\n")
    home = tmp_path / "home"
    with serve(mirror) as url, pytest.raises(ChecksumError, match=r"x/f.txt"):
        fetch._fetch_one(source, home, base_url=url, force=False, timeout=10, log=None)
    assert list((home / "x").iterdir()) == []


def _mirror_from_data_home(mirror: pathlib.Path, names) -> None:
    """Rebuild the sources' bytes of ``names`` from the data home (undoing each transform)."""
    home = get_data_home()
    sources = [s for name in names for s in fetch.sources_of(name)]
    for source in sources:
        stored = home.joinpath(*source.path.split("/")).read_bytes()
        if source.transform == "copy":
            raw = stored
        elif source.transform == "gzip":
            raw = gzip.decompress(stored)
        else:  # splice.t: the source file is splice followed by splice.t
            head = home.joinpath("libsvm", "splice").read_bytes()
            raw = head + gzip.decompress(stored)
        mirror_path(mirror, source.url).write_bytes(raw)


@pytest.mark.requires_data("car", "a9a", "splice", "ijcnn1")
def test_cli_fetch_from_a_local_mirror(tmp_path, monkeypatch, capsys):
    names = ["car", "a9a", "splice", "ijcnn1"]
    mirror = tmp_path / "mirror"
    _mirror_from_data_home(mirror, names)
    home = tmp_path / "home"
    with serve(mirror) as url:
        monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(home))
        assert cli.main(["data", "check", *names]) == 1
        assert cli.main(["data", "fetch", *names, "--base-url", url]) == 0
        out = capsys.readouterr().out
        assert "downloading http://127.0.0.1" in out
        assert cli.main(["data", "check", *names]) == 0
        # a second fetch finds the files present and downloads nothing
        assert cli.main(["data", "fetch", "car", "--base-url", url]) == 0
        assert "uci/car.csv: present" in capsys.readouterr().out
    from imbalance_stream.datasets import A9A, Car, Splice

    assert Car().to_numpy()[0].shape == (1728, 6)
    assert A9A().n_samples == len(A9A().to_numpy()[1])
    assert len(Splice(split="test").to_numpy()[1]) == 2175
    with bz2.open(home / "libsvm" / "ijcnn1.trn.bz2") as handle:  # stored as downloaded
        assert sum(1 for _ in handle) == 49990


def test_cli_fetch_unknown_name_is_a_usage_error(capsys):
    assert cli.main(["data", "fetch", "a9b"]) == 2
    assert "did you mean 'a9a'" in capsys.readouterr().err


def test_cli_fetch_network_failure_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path / "home"))
    # nothing listens on port 9 of 127.0.0.1 (discard): the connection is refused at once
    assert cli.main(["data", "fetch", "car", "--base-url", "http://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("imbalance-stream: error: download failed") and "\n" not in err
    assert not (tmp_path / "home" / "uci" / "car.csv").exists()


def test_missing_file_names_the_fetch_command(tmp_path, monkeypatch):
    from imbalance_stream.datasets import German

    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path))
    with pytest.raises(MissingDataFile) as info:
        German().to_numpy()
    assert info.value.path == "libsvm/german.numer"
    assert info.value.fetch_name == "german"
    assert "imbalance-stream data fetch german" in str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    import pickle

    again = pickle.loads(pickle.dumps(info.value))
    assert (again.path, again.fetch_name) == ("libsvm/german.numer", "german")
