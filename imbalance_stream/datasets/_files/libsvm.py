"""The files of the LIBSVM loaders (:mod:`imbalance_stream.datasets.libsvm_datasets`)."""

from __future__ import annotations

from ..home import DataFile, github_blob

LIBSVM_BINARY = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
LIBSVM_MULTI = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/"
_GZ = "The stored copy is gzip-compressed (gzip -9 -n) under this name."


_ADV = ("Rroscha/Adversarial-Attack-on-KNN", "32c1cc77a46101f93b8f80095f60ebadab90ad5e")
_TSIM = ("ambroiseodt/tsim", "c80abbd765cdaa57ad2b598583251850ded28e62")
_ZPLI = ("zpli0320/dataset", "9d76c73bdf96dd61c1a47ebbcde19131fc1b574c")
_SAT = ("peterwu19881230/CSCE633_ML_data", "4350d3340b6cc82af8c8cb03827bbcf251b9acf5")
_FLX = ("dtera/fl_xgboost", "0abd2e16afeea63f53ff249f4e0ad15a8e5d663c")

FILES = {
    "german.numer": DataFile(
        "libsvm/german.numer",
        "49cd2d01c2b2908a84db1f1c94e3ec04f772db3a91560af1225edf739f003194",
        LIBSVM_BINARY + "german.numer",
        github_blob(*_ADV, "data/german.numer"),
        fetch_name="german",
    ),
    "a9a": DataFile(
        "libsvm/a9a.gz",
        "8930931143e8ecd54a1dac81e65d7651cbd4f4840e2e9536ae18ee03d135d28c",
        LIBSVM_BINARY + "a9a",
        github_blob(*_FLX, "data/a9a"),
        content_sha256="7ba53cccb27e2e525f0fb173e1f446d49856e3fb007eb43be4ec6d0f5b3335ca",
        note=_GZ,
        fetch_name="a9a",
    ),
    "a9a.t": DataFile(
        "libsvm/a9a.t.gz",
        "92967561181c73a60149cc8221b936eb746573fda8cbf483115d673f42b26c3f",
        LIBSVM_BINARY + "a9a.t",
        github_blob(*_FLX, "data/a9a.t"),
        content_sha256="1f448a153f0320399a7e40836eb207655b0bde0f21fc941cc472193daa9f5de9",
        note=_GZ,
        fetch_name="a9a",
    ),
    "ijcnn1": DataFile(
        "libsvm/ijcnn1.trn.bz2",
        "b38a4198ce142d43e96fb86d17b87211feec1f909ac344fa057455c69de29de3",
        LIBSVM_BINARY + "ijcnn1.tr.bz2",
        github_blob(
            "X-DataInitiative/tick-datasets",
            "9d959b6e53e17145e93e9849ff1f9f6d2de8ae51",
            "binary/ijcnn1/ijcnn1.trn.bz2",
        ),
        content_sha256="7fe291672c3fefe6a7e3c51529becd23f0e985ba05ffb8d53c9c648c1e91cc19",
        note="It is LIBSVM's ijcnn1.tr + ijcnn1.val (49,990 rows) as re-written by tick.",
        fetch_name="ijcnn1",
    ),
    "australian": DataFile(
        "libsvm/australian",
        "a3b5960775ac0eff78b579ab43affd73b848bef6f59d1cc972fc60188f0fb6ba",
        LIBSVM_BINARY + "australian",
        github_blob(*_ADV, "data/australian"),
        fetch_name="australian",
    ),
    "mushrooms": DataFile(
        "libsvm/mushrooms",
        "eb26424a54203ca9e8956ff3e5b10e613dfc3587f65d21bdbdbc28020fd995e0",
        LIBSVM_BINARY + "mushrooms",
        github_blob(*_TSIM, "data/mushrooms.txt"),
        fetch_name="mushrooms",
    ),
    "w8a": DataFile(
        "libsvm/w8a.gz",
        "758d97c654378b34cca0160e7a6b2ac926d882b51dddd2f0d3d3743f0ed9135b",
        LIBSVM_BINARY + "w8a",
        github_blob(
            "unc-optimization/AccSPD", "d2f1f2c961e3401032649544445bb24ab63ab1c5", "data/w8a"
        ),
        content_sha256="b464b4f6ce6a5d9e181ffc793e19a04751036273722312398ef7673705014902",
        note=_GZ,
        fetch_name="w8a",
    ),
    "dna.scale": DataFile(
        "libsvm/dna.scale",
        "f74937ccb8908628058ae1819d4d46c960ce64383f622c994d4f2e6e21026494",
        LIBSVM_MULTI + "dna.scale",
        github_blob(*_ZPLI, "dna.scale"),
        fetch_name="dna",
    ),
    "dna.scale.t": DataFile(
        "libsvm/dna.scale.t",
        "d2eeed170e4e38ae2aba6aa4cd27a8ca4ecceb01a7751e8e509bb4e1a6bcef39",
        LIBSVM_MULTI + "dna.scale.t",
        github_blob(*_ZPLI, "dna.scale.t"),
        fetch_name="dna",
    ),
    "satimage.scale": DataFile(
        "libsvm/satimage.scale.gz",
        "a8d60ddedea725e303b79ab809aa90a9d954865cb3f98b14934e3a8551dcca20",
        LIBSVM_MULTI + "satimage.scale",
        github_blob(*_SAT, "satimage.scale.training"),
        content_sha256="df08755887b968a272b84247fa0b1543b8cd623442fbc1c7943144e459ef2eb6",
        note=_GZ,
        fetch_name="satimage",
    ),
    "satimage.scale.t": DataFile(
        "libsvm/satimage.scale.t",
        "b04c60323488f5a7f571d40be5d750b279e8f3bd43729b4c109b8c013fcd8196",
        LIBSVM_MULTI + "satimage.scale.t",
        github_blob(*_SAT, "satimage.scale.t"),
        fetch_name="satimage",
    ),
    "letter.scale": DataFile(
        "libsvm/letter.scale.gz",
        "5c7f029f2749f1bec46349370b9de1099cf83061ea2a58a76986ad17004e8d93",
        LIBSVM_MULTI + "letter.scale",
        github_blob(*_ADV, "data/letter.scale"),
        content_sha256="ce2c7df15cc5742dc4382d59079181c97c21e0beaa0af53c84cc5745c69f1020",
        note=_GZ,
        fetch_name="letter",
    ),
    "letter.scale.t": DataFile(
        "libsvm/letter.scale.t",
        "07522ccbf54187fae6d560d1712b88c41ea1f7e8d19491c5adcc22ee37a075da",
        LIBSVM_MULTI + "letter.scale.t",
        github_blob(*_ADV, "data/letter.scale.t"),
        fetch_name="letter",
    ),
    "cod-rna": DataFile(
        "libsvm/cor_rna_scaled.mat",
        "16f63aba8339cdf7e8c2efe47a5c7ed5e983f1b99ad2f9afb3774ebf81877fbf",
        LIBSVM_BINARY + "cod-rna",
        github_blob(
            "g2clv7fwl945/convex_dataset",
            "3d8f83c73359ab9fa28b0272dde94236cc26b7ec",
            "cor_rna_scaled.mat",
        ),
        fetch_name="cod-rna",
    ),
    "splice": DataFile(
        "libsvm/splice",
        "eee33566cfe8988ec26122460cc712d66c5c5b79b966b259408e803addaa584d",
        LIBSVM_BINARY + "splice",
        github_blob(*_ADV, "data/splice"),
        fetch_name="splice",
    ),
    "splice.t": DataFile(
        "libsvm/splice.t.gz",
        "63cd804c221369cbd98e007a7908d98fc8f5bfa0321258dcb44497b032d0b5af",
        LIBSVM_BINARY + "splice.t",
        github_blob(*_TSIM, "data/splice.txt"),
        content_sha256="f40da7cfd17860f3f1a1bb7d118f8e86c306d232ca6ac6ddefbaaef266abaa03",
        note="The stored copy is lines 1001-3175 of that file (tail -n +1001), gzip-compressed.",
        fetch_name="splice",
    ),
}
