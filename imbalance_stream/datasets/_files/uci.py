"""The files of the UCI loaders (:mod:`imbalance_stream.datasets.uci`)."""

from __future__ import annotations

from ..home import github_blob
from . import file_table

UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"


_MAYANK = ("Mayank-Chandra/datasets", "c02c61b217709ecdfc89815c88fbb5cca1968c33")
_PEN = ("kgolofit/MOW-14Z", "f544a028a855f1c07435af929cc19ed4a8beb6d6")
_HEADER = "The stored copy is the UCI file with a header line added."

# The file tables (key: the name the loaders use), read by file_table.
# key -> sha256 of the stored file
_SHA = {
    "magic04": "318f3f9d066a87b9a36cf3dcad60af14b9446a50f25dc408b308aa61108671f7",
    "spambase": "ebec58cfca94ea61c77df632314acae15bad410f4769d38b1a66cb41050e3431",
    "abalone": "de37cdcdcaaa50c309d514f248f7c2302a5f1f88c168905eba23fe2fbc78449f",
    "breast-cancer-wisconsin": "3e341e11fcf7ebf0a64b197f4cba3ff1abb82264e684a036ef3547e0655c5a60",
    "car": "545bf966f928f303c601d59e90722bc52c8b4bb28b3b696002877140849199e6",
    "pendigits.tra": "e2b9eb9f0d0467e2b64a4816a3420edf2b8043447576f4b84337aba44a9f97d3",
    "pendigits.tes": "8bd03229c5c5291fefe43e45465dd948d2645bf23328b9d993e0b777666b2015",
}
# compressed copies: key -> sha256 of the decompressed content
_CONTENT_SHA = {"magic04": "e9314b7ebd4b4b59a3b3d65f7316663963777b16a46786877651dbbaa640b36a"}
# the copies that are not the UCI file as published
_NOTES = {
    "magic04": "The stored copy is gzip-compressed (gzip -9 -n) under this name.",
    "breast-cancer-wisconsin": _HEADER,
    "car": _HEADER,
}

# key -> the repository file the stored bytes come from
_ORIGINS = {
    "magic04": github_blob(
        "TanishaSharma01/MAGIC-gamma-hadron-classification",
        "8895e72ade7e042cc154730da133fa3ec298414c",
        "magic04.data",
    ),
    "spambase": github_blob(
        "HassanRezaee/ML_from_Scratch",
        "55d02c648fe0800b47292f018ca0dde7707c24d3",
        "spambase.data",
    ),
    "abalone": github_blob(*_MAYANK, "data/abalone.data"),
    "breast-cancer-wisconsin": github_blob(
        "dishantrathi/DataSet",
        "3fd974e035a97733fa136f43d2941a9e237c497c",
        "breast-cancer-wisconsin.data",
    ),
    "car": github_blob(*_MAYANK, "car.data"),
    "pendigits.tra": github_blob(*_PEN, "pendigits.tra"),
    "pendigits.tes": github_blob(*_PEN, "pendigits.tes"),
}
# key -> (stored file under uci/, its UCI page, the name it is fetched under)
_SOURCES = {
    "magic04": ("magic04.data.gz", UCI + "magic/magic04.data", "magic04"),
    "spambase": ("spambase.data", UCI + "spambase/spambase.data", "spambase"),
    "abalone": ("abalone.data", UCI + "abalone/abalone.data", "abalone"),
    "breast-cancer-wisconsin": (
        "breast-cancer-wisconsin.csv",
        UCI + "breast-cancer-wisconsin/breast-cancer-wisconsin.data",
        "breast-cancer-wisconsin",
    ),
    "car": ("car.csv", UCI + "car/car.data", "car"),
    "pendigits.tra": ("pendigits.tra", UCI + "pendigits/pendigits.tra", "pendigits"),
    "pendigits.tes": ("pendigits.tes", UCI + "pendigits/pendigits.tes", "pendigits"),
}
FILES = file_table("uci", _SOURCES, _SHA, _ORIGINS, _CONTENT_SHA, _NOTES)
