"""A CSV file as a River dataset (River's ``stream.iter_csv``, re-iterable, with named converters).

>>> import os, tempfile
>>> from imbalance_stream.datasets import CSVFile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "events.csv")
>>> with open(path, "w") as handle:
...     _ = handle.write("day,amount,fraud\\n2024-01-01,12.5,0\\n2024-01-02,900,1\\n")
>>> data = CSVFile(path, target="fraud", converters={"amount": "float", "fraud": "int"},
...                parse_dates={"day": "%Y-%m-%d"})
>>> data.n_samples, data.n_features
(2, 2)
>>> for x, y in data:
...     print(x["day"].date(), x["amount"], y)
2024-01-01 12.5 0
2024-01-02 900.0 1

"""

from __future__ import annotations

import csv
import pathlib

from river import stream
from river.datasets import base as river_base

__all__ = ["CONVERTERS", "CSVFile"]


def _bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes", "y", "t"):
        return True
    if lowered in ("false", "0", "no", "n", "f", ""):
        return False
    raise ValueError(f"not a boolean: {value!r}")


#: The converters a scenario file can name (a TOML file cannot hold a function).
CONVERTERS = {"float": float, "int": int, "str": str, "bool": _bool}

_TASKS = {
    "binary": river_base.BINARY_CLF,
    "multiclass": river_base.MULTI_CLF,
    "regression": river_base.REG,
}


class CSVFile(river_base.Dataset):
    """The rows of a CSV file with a header line, as ``(x, y)`` pairs.

    Each iteration reads the file again with :func:`river.stream.iter_csv`, so the dataset can be
    iterated (and deep-copied) as often as needed, as River's own datasets can.

    Parameters
    ----------
    path
        The file (``.gz`` and ``.zip`` are decompressed on the fly).
    target
        The column holding the label; ``None`` for no label.
    converters
        Column -> converter. A converter is a callable or one of the names ``"float"``,
        ``"int"``, ``"str"``, ``"bool"`` (``true``/``1``/``yes`` and ``false``/``0``/``no``/empty).
        Columns without a converter stay strings, as River reads them; the target column too.
    parse_dates
        Column -> ``datetime.strptime`` format.
    drop
        Columns to leave out.
    delimiter
        The field separator.
    task
        ``"binary"`` (default), ``"multiclass"`` or ``"regression"``: what River's metrics are
        told about the labels.

    """

    def __init__(
        self,
        path,
        target: str | None = None,
        converters: dict | None = None,
        parse_dates: dict | None = None,
        drop: list | None = None,
        delimiter: str = ",",
        task: str = "binary",
    ):
        if task not in _TASKS:
            raise ValueError(f"task must be one of {', '.join(map(repr, _TASKS))}, got {task!r}")
        self.file = pathlib.Path(path)
        self.target = target
        self.converters = dict(converters or {})
        self.parse_dates = dict(parse_dates or {})
        self.drop = list(drop or [])
        self.delimiter = delimiter
        self.task_name = task
        self._callables = {
            column: self._converter(column, spec) for column, spec in self.converters.items()
        }
        header, rows = self._scan()
        for option, columns in (
            ("target", [target] if target is not None else []),
            ("converters", list(self.converters)),
            ("parse_dates", list(self.parse_dates)),
            ("drop", self.drop),
        ):
            unknown = [c for c in columns if c not in header]
            if unknown:
                raise ValueError(
                    f"{self.file}: {option} names {', '.join(map(repr, unknown))}, not a column; "
                    f"the columns are {', '.join(map(repr, header))}"
                )
        n_features = len([c for c in header if c != target and c not in self.drop])
        super().__init__(task=_TASKS[task], n_features=n_features, n_samples=rows)

    @staticmethod
    def _converter(column, spec):
        if callable(spec):
            return spec
        if spec in CONVERTERS:
            return CONVERTERS[spec]
        raise ValueError(
            f"converters.{column}: {spec!r} is not a converter; use one of "
            + ", ".join(map(repr, CONVERTERS))
        )

    def _open(self):
        if self.file.suffix == ".gz":
            import gzip

            return gzip.open(self.file, "rt", newline="")
        return open(self.file, newline="")

    def _scan(self) -> tuple[list[str], int]:
        if self.file.suffix == ".zip":
            samples = list(stream.iter_csv(str(self.file), delimiter=self.delimiter))
            return ([str(name) for name in samples[0][0]] if samples else []), len(samples)
        try:
            handle = self._open()
        except OSError as error:
            raise FileNotFoundError(
                f"cannot read the CSV file {str(self.file)!r}: {error}"
            ) from None
        with handle:
            reader = csv.reader(handle, delimiter=self.delimiter)
            header = next(reader, [])
            rows = sum(1 for row in reader if row)
        return header, rows

    def __iter__(self):
        # River drops columns before converting: a converter of a dropped column would fail.
        converters = {k: v for k, v in self._callables.items() if k not in self.drop}
        dates = {k: v for k, v in self.parse_dates.items() if k not in self.drop}
        yield from stream.iter_csv(
            str(self.file),
            target=self.target,
            converters=converters or None,
            parse_dates=dates or None,
            drop=self.drop or None,
            delimiter=self.delimiter,
        )
