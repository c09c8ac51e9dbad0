"""The files of the LIBSVM loaders (:mod:`imbalance_stream.datasets.libsvm_datasets`)."""

from __future__ import annotations

from ..home import github_blob
from . import file_table

LIBSVM_BINARY = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
LIBSVM_MULTI = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/"
_GZ = "The stored copy is gzip-compressed (gzip -9 -n) under this name."


_ADV = ("Rroscha/Adversarial-Attack-on-KNN", "32c1cc77a46101f93b8f80095f60ebadab90ad5e")
_TSIM = ("ambroiseodt/tsim", "c80abbd765cdaa57ad2b598583251850ded28e62")
_ZPLI = ("zpli0320/dataset", "9d76c73bdf96dd61c1a47ebbcde19131fc1b574c")
_SAT = ("peterwu19881230/CSCE633_ML_data", "4350d3340b6cc82af8c8cb03827bbcf251b9acf5")
_FLX = ("dtera/fl_xgboost", "0abd2e16afeea63f53ff249f4e0ad15a8e5d663c")
_TICK = ("X-DataInitiative/tick-datasets", "9d959b6e53e17145e93e9849ff1f9f6d2de8ae51")
_ACC = ("unc-optimization/AccSPD", "d2f1f2c961e3401032649544445bb24ab63ab1c5")
_CONVEX = ("g2clv7fwl945/convex_dataset", "3d8f83c73359ab9fa28b0272dde94236cc26b7ec")

# The file tables, one line a file (key: the name the loaders use), read by file_table.
# key -> sha256 of the stored file
_SHA = {
    "german.numer": "49cd2d01c2b2908a84db1f1c94e3ec04f772db3a91560af1225edf739f003194",
    "a9a": "8930931143e8ecd54a1dac81e65d7651cbd4f4840e2e9536ae18ee03d135d28c",
    "a9a.t": "92967561181c73a60149cc8221b936eb746573fda8cbf483115d673f42b26c3f",
    "ijcnn1": "b38a4198ce142d43e96fb86d17b87211feec1f909ac344fa057455c69de29de3",
    "australian": "a3b5960775ac0eff78b579ab43affd73b848bef6f59d1cc972fc60188f0fb6ba",
    "mushrooms": "eb26424a54203ca9e8956ff3e5b10e613dfc3587f65d21bdbdbc28020fd995e0",
    "w8a": "758d97c654378b34cca0160e7a6b2ac926d882b51dddd2f0d3d3743f0ed9135b",
    "dna.scale": "f74937ccb8908628058ae1819d4d46c960ce64383f622c994d4f2e6e21026494",
    "dna.scale.t": "d2eeed170e4e38ae2aba6aa4cd27a8ca4ecceb01a7751e8e509bb4e1a6bcef39",
    "satimage.scale": "a8d60ddedea725e303b79ab809aa90a9d954865cb3f98b14934e3a8551dcca20",
    "satimage.scale.t": "b04c60323488f5a7f571d40be5d750b279e8f3bd43729b4c109b8c013fcd8196",
    "letter.scale": "5c7f029f2749f1bec46349370b9de1099cf83061ea2a58a76986ad17004e8d93",
    "letter.scale.t": "07522ccbf54187fae6d560d1712b88c41ea1f7e8d19491c5adcc22ee37a075da",
    "cod-rna": "16f63aba8339cdf7e8c2efe47a5c7ed5e983f1b99ad2f9afb3774ebf81877fbf",
    "splice": "eee33566cfe8988ec26122460cc712d66c5c5b79b966b259408e803addaa584d",
    "splice.t": "63cd804c221369cbd98e007a7908d98fc8f5bfa0321258dcb44497b032d0b5af",
}
# compressed copies: key -> sha256 of the decompressed content
_CONTENT_SHA = {
    "a9a": "7ba53cccb27e2e525f0fb173e1f446d49856e3fb007eb43be4ec6d0f5b3335ca",
    "a9a.t": "1f448a153f0320399a7e40836eb207655b0bde0f21fc941cc472193daa9f5de9",
    "ijcnn1": "7fe291672c3fefe6a7e3c51529becd23f0e985ba05ffb8d53c9c648c1e91cc19",
    "w8a": "b464b4f6ce6a5d9e181ffc793e19a04751036273722312398ef7673705014902",
    "satimage.scale": "df08755887b968a272b84247fa0b1543b8cd623442fbc1c7943144e459ef2eb6",
    "letter.scale": "ce2c7df15cc5742dc4382d59079181c97c21e0beaa0af53c84cc5745c69f1020",
    "splice.t": "f40da7cfd17860f3f1a1bb7d118f8e86c306d232ca6ac6ddefbaaef266abaa03",
}
# key -> the repository file the stored bytes come from
_ORIGINS = {
    "german.numer": github_blob(*_ADV, "data/german.numer"),
    "a9a": github_blob(*_FLX, "data/a9a"),
    "a9a.t": github_blob(*_FLX, "data/a9a.t"),
    "ijcnn1": github_blob(*_TICK, "binary/ijcnn1/ijcnn1.trn.bz2"),
    "australian": github_blob(*_ADV, "data/australian"),
    "mushrooms": github_blob(*_TSIM, "data/mushrooms.txt"),
    "w8a": github_blob(*_ACC, "data/w8a"),
    "dna.scale": github_blob(*_ZPLI, "dna.scale"),
    "dna.scale.t": github_blob(*_ZPLI, "dna.scale.t"),
    "satimage.scale": github_blob(*_SAT, "satimage.scale.training"),
    "satimage.scale.t": github_blob(*_SAT, "satimage.scale.t"),
    "letter.scale": github_blob(*_ADV, "data/letter.scale"),
    "letter.scale.t": github_blob(*_ADV, "data/letter.scale.t"),
    "cod-rna": github_blob(*_CONVEX, "cor_rna_scaled.mat"),
    "splice": github_blob(*_ADV, "data/splice"),
    "splice.t": github_blob(*_TSIM, "data/splice.txt"),
}
# the copies that are not the LIBSVM file as published
_NOTES = {
    **dict.fromkeys(_CONTENT_SHA, _GZ),
    "ijcnn1": "It is LIBSVM's ijcnn1.tr + ijcnn1.val (49,990 rows) as re-written by tick.",
    "splice.t": "The stored copy is lines 1001-3175 of that file (tail -n +1001), gzip-compressed.",
}

# key -> (stored file under libsvm/, its LIBSVM page, the name it is fetched under)
_SOURCES = {
    "german.numer": ("german.numer", LIBSVM_BINARY + "german.numer", "german"),
    "a9a": ("a9a.gz", LIBSVM_BINARY + "a9a", "a9a"),
    "a9a.t": ("a9a.t.gz", LIBSVM_BINARY + "a9a.t", "a9a"),
    "ijcnn1": ("ijcnn1.trn.bz2", LIBSVM_BINARY + "ijcnn1.tr.bz2", "ijcnn1"),
    "australian": ("australian", LIBSVM_BINARY + "australian", "australian"),
    "mushrooms": ("mushrooms", LIBSVM_BINARY + "mushrooms", "mushrooms"),
    "w8a": ("w8a.gz", LIBSVM_BINARY + "w8a", "w8a"),
    "dna.scale": ("dna.scale", LIBSVM_MULTI + "dna.scale", "dna"),
    "dna.scale.t": ("dna.scale.t", LIBSVM_MULTI + "dna.scale.t", "dna"),
    "satimage.scale": ("satimage.scale.gz", LIBSVM_MULTI + "satimage.scale", "satimage"),
    "satimage.scale.t": ("satimage.scale.t", LIBSVM_MULTI + "satimage.scale.t", "satimage"),
    "letter.scale": ("letter.scale.gz", LIBSVM_MULTI + "letter.scale", "letter"),
    "letter.scale.t": ("letter.scale.t", LIBSVM_MULTI + "letter.scale.t", "letter"),
    "cod-rna": ("cor_rna_scaled.mat", LIBSVM_BINARY + "cod-rna", "cod-rna"),
    "splice": ("splice", LIBSVM_BINARY + "splice", "splice"),
    "splice.t": ("splice.t.gz", LIBSVM_BINARY + "splice.t", "splice"),
}
FILES = file_table("libsvm", _SOURCES, _SHA, _ORIGINS, _CONTENT_SHA, _NOTES)
