"""The files of the KOIL paper's benchmark (:mod:`imbalance_stream.datasets.koil`)."""

from __future__ import annotations

from ..home import DataFile

_COMMIT = "b1b726919570cb5edf5d3624e41dd72ce901987a"
_URL = f"https://github.com/zengjichuan/KOIL/blob/{_COMMIT}/dataset/"

# stored file (relative to koil/) -> its sha256
_SHA = {
    "australian": "98fa727344abcd6f37a682449a0583f5b642d9fd09435de060728d6324170abe",
    "australian_IdxAsso": "d9de6609559cb2399413da1ae4581a182d02a6b6d463156bc9a1aac3f6dc809e",
    "australian_IdxCv": "78a96096e9462f1f45b8e4a5b5a1d25f40e3195ad9c6d5b4a4abf7c8043b6434",
    "breast_cancer": "3db6079f75f9f34ee75af835cbdd3bfecae5eccce8eb6952edc57c8e1f6db148",
    "breast_cancer_IdxAsso": "760b445be7022235db0eacea750e18ce1e22251a03df07aee9786f94c00272d4",
    "breast_cancer_IdxCv": "953bb642a744fe020c2fb200850b5f5b26c6586d1d8d6519ab6d9e5f9efb0241",
    "diabetes": "ec945adc1b6f239de7b4a658c6714779624f421735e12f6db683f31b705cc923",
    "diabetes_IdxAsso": "a8873e6e4612bb35adb4af62f320741b08db0e07822906dfd09cfef34f0e6980",
    "diabetes_IdxCv": "18f61945572dbf7a8bf74523080d79e8cc6b75c88049817ca2d595e741ba118a",
    "dna.gz": "820b88b00c8bbc6fb81a18067c6051f4171bd8df9b4839f2a94b376c56db6bb3",
    "dna_IdxAsso": "b6ca858c42a113cd563545e9da0603d7a7150749579b443e079b08d7b3484128",
    "dna_IdxCv": "0860b719279dfe8f0fbdbcbe3b93f1e1f1b04e4c1275abba02583f4e961b1b16",
    "fourclass": "0e740bad13eb7c47de15f3213ef8861817d3a7cc59a16241475389f43d410732",
    "fourclass_IdxAsso": "0afa335ca124c43217cf46ddcf5064fddba7ca4b7f0c0473a506b60c9b1c1ef6",
    "fourclass_IdxCv": "b2d3a74a522c21c8a1ce5a0359a24b6153d57d3f79f584f00f454ce53c41569c",
    "german": "321e24bce0efaf6e1870d4cacad726ffed19b67490f6a07a1c1dcee78343e87b",
    "german_IdxAsso": "cbf487b67d3478e633dfa4d0fb8cff425aaffdccc511a5be0b7a9c39774bc045",
    "german_IdxCv": "cd743fcea3fd124412d565877302cbf32449622aaeedb8d7be59cfbcdcc18201",
    "glass": "7c45a83a4047e86a71ab720bd84bca5885d3f0c255f4d64b3646ffdb3bcf18ee",
    "glass_IdxAsso": "62fcd5f54f40f1baaf66b760ea968d1da4fb4020cffdb8e425110dfee642882a",
    "glass_IdxCv": "85adf5e2de78bc51f35c37832d0c2f35e1ff0b462aca31a942398085eb791d4b",
    "heart": "2e06f1dc9bc2f4fe0da834e0ed5a36f9cfeeebc0753eda108a4cf2905a533514",
    "heart_IdxAsso": "734ef3143113b8d8db73a5732e33ebe902eb3e4e735e946810181d68a7089cba",
    "heart_IdxCv": "3a82f51d3c20866027adef352b1963d03d02f993272640f850d9b677e1cea52d",
    "ionosphere": "55295db55e270332d4c0983a431a73c3b5608cb12abad748af21bf29bdfdea69",
    "ionosphere_IdxAsso": "334e81940423afdf8ac1e87353ac21bc42f2c06412ceadf8b14c3f470db0ff40",
    "ionosphere_IdxCv": "aca90546f2c6b61df19cff9e4007063a1473c0a9a04836d8f5f65afe23fff43e",
    "letter.gz": "9f8d7e82648100957a566de2c35eee284d2f0eaed3af22f98861a03b7154f434",
    "letter_IdxAsso": "bc2e010bcf908840b9d3f2d87777c88b4edb1e394c86a47c5e3ea841dad69799",
    "letter_IdxCv": "4adc30bba690dab0f5687bf7d7cc7eadb8382663df963ee89d6fe70051c1de59",
    "liver_disorders": "ba2b05b32319177552e6aa7e731eeceba2f569cb17f0fd232d1c5a03d4655117",
    "liver_disorders_IdxAsso": "6210f10cf8c06419486414b20db04bdcb0d13f18d65ff02ba6935eef52d9658c",
    "liver_disorders_IdxCv": "998899cbfdcf3fba6ad7320d9c37acf363a27485980c181fdf7b7d9da4c5dc76",
    "logs_12t": "471eca83423aa1ed50aaafc3692ec41eb7f497bdf560a43b1729dca992cb5116",
    "logs_12t_IdxAsso": "8f332ecc35960fd9afb00ef7b4f8327308f594b4cbee0f970c25eaf6d7709e5b",
    "logs_12t_IdxCv": "2af16e354eb318ab214615d0eb1fdf3b5fa10b12c04b786cc893864768b5d3c6",
    "poker.gz": "afd59b837bd981c0395662f53d523a355b6306740d9d715e987b6cc1b5b8ac8e",
    "poker_IdxAsso.gz": "00ee59cbae8fe7e42a7714d2b6a87d400330a1e80873535b47715b78414d6612",
    "poker_IdxCv": "308e847ad3416ce96b663472400a41f042a948d96f1da4c7a8535e4acd3ed4de",
    "s10": "4fa64ae30e122ade5e2fd1cbb4b70fbcafc4340a4498c3759d3abcfdf6a16914",
    "s100": "80651a304eea85100cd355cd03cab3b3e2d2a79088ef16f8144a777e3fd12e3c",
    "s100_IdxAsso": "a3bad772d031e173ce70ce1570330415ccd0a905c4656063a623914edd52a6a9",
    "s100_IdxCv": "23c3b5691d4763c3adf9b47a4b69422135007a49797bdcad8d62502001b5d2c9",
    "s10_IdxAsso": "0c1cd973d157527106bc609c7c17790748a5547db6f55f5efa36925a36a2a210",
    "s10_IdxCv": "bccf8a2ccd40faa54be5c4e6322837d4291d73156f0eb578c0966e737ed7ef89",
    "s4": "341f280ea70b4eacf5f33cd70b90da248e552d12c0eaa4d3c4683f81777cad04",
    "s4_IdxAsso": "fe3e94de8bf3d16170a5de60516663e6de658af907c59f140c972b8b384cc1fa",
    "s4_IdxCv": "e4b6db0854a3bba740c86c8f7de8f636afaf2a72533280823acf8f85585fafdb",
    "s50": "c2a61ecbdf949def1ed5e42c6621c9a8e19494ef908b79a7e8f888d7a086ce6d",
    "s50_IdxAsso": "a569f99e9cb4ee44ed8f7c30e66ff513a5c8d81dcf970345e7a5c25e66241845",
    "s50_IdxCv": "b0aebe5099b6eb6a79def14644dd095a5e145111acc7f67bc9a0385135012f77",
    "satimage_sub.gz": "704f1a8b27c99a09a66cf7974a2579c6ce8988fb1787f16096110b81fb0cb49c",
    "satimage_sub_IdxAsso": "8916472f086d54661e7a141e6de7d53be983fd67d038b1c92b4d855578ecf662",
    "satimage_sub_IdxCv": "a8b9b8c7c7fb09817ab979ef61a82de7d9d6a8af729986d82c404152cd723754",
    "segment": "7693e635c5c8d6103618215aebd4abf78b36530c7c9ee64f535dc94ec3662212",
    "segment_IdxAsso": "726d28fb4094317b4f68b206ea5d49e67dbbb749dd68374fbdb56f2190b609e0",
    "segment_IdxCv": "944068d1ba37121f44c2a4da8de567222821d36b1aa307f6a8b24d04b76b5d7d",
    "shuttle_IdxAsso.gz": "f156ca0aa9d6baa64cfb10ea1ef66206bf19e0b7e883b3549e03911c8446c681",
    "shuttle_IdxCv": "b9fc852975e3ce6974c534a0191e8d80ec2e45bc9ef798d2205123a66fe13040",
    "sonar": "dd595001e8b07f0467fbbb1b712467068b8c13154c5f7a35429e12dd1d01944c",
    "sonar_IdxAsso": "7ce03e1c36ce5f83987e33190cad3b937fe38ab7acbcabed0a7a52f109ca01df",
    "sonar_IdxCv": "8a8f002ddace87394428efd9a8db1d53834693ed6aad2e9eae201fa29b2b177d",
    "svmguide1_sub": "977154a5362261f8ab19a5fb364de3966e1ba0b03601d9197c8d5e81549f6636",
    "svmguide1_sub_IdxAsso": "95a672a1dddbb74d94aefe3434b19d9c63e4201f155e467c83f2470c34f2b4f7",
    "svmguide1_sub_IdxCv": "98d25036f6a523d1f92ba1b182df3f04e5c28bc3e058e2546deb24211b8a0a25",
    "svmguide2": "1eb95c4fcc7cccebaa2f894cd8b0257e2538e10aa0dff04d1cc5d78f5b57ea71",
    "svmguide2_IdxAsso": "4969bfbbba5d812c4c1b7de6a595480536a19cbf8a21fd23c1acda7825c9329d",
    "svmguide2_IdxCv": "ef07c0efd468bc66b12ea19ad631f7695904be8f1da44936128c51261d63b631",
    "svmguide3": "8652918f2d502761e162cb86b39ec08733e458414e6cb08e7ccc4af5877719ac",
    "svmguide3_IdxAsso": "400c55174dbd1f5e029c3f403068a056ae2f6b1adda64e40d07ab04105f37524",
    "svmguide3_IdxCv": "af423387b3c9015db2c364e635a64957498eec6f6c760a5eeb8d7c8c3f2da7bf",
    "svmguide4": "2c1e602000aaf1f950c349449b7197ad48f40886ed15a0a1515c5ae11bf001a8",
    "svmguide4_IdxAsso": "38cfc1d10115baecbdd7614b5378660709fe5c84cafca957c40d81950808328a",
    "svmguide4_IdxCv": "3d6e34db3427b2cfe7b7bab6e764ea14e3eb71f11ab7fd194a53a29850681437",
    "vehicle": "afb2888fb6044da9337f61961de48cd0f2d310742aff1bac935b98a49afe2a84",
    "vehicle_IdxAsso": "219c65426e6503bdf2ba084b4dafe43a6b472dc5fc825e5a9771da1d8f1f273a",
    "vehicle_IdxCv": "76282d84b5a250a31c9a052d9897f371a011986b51922a741a87477f418dab28",
    "vowel": "855cf8b7b2aa9ffc7e03cf4f110af324d2a3ad2cd8fb4da3a626b4242757a4e9",
    "vowel_IdxAsso": "e23b7c898fe34040502f006dcce641a064dc7507624e48baecd1a1dc33fb153f",
    "vowel_IdxCv": "69a71a625588f2f52c3bb10d7d655852b37750ab7c9c1696b26aca25fecfb55c",
    "w8a_IdxAsso.gz": "61171a0b1beaf74011c92ff4685f1d0a5797ce7c5fc548f720b58b519ed3f462",
    "w8a_IdxCv": "3b5451d33d55ae9570f287649cc15f4946d551eb15a319fb96d3a5c885ced48d",
}
# stored gzip file -> the sha256 of its decompressed content
_CONTENT_SHA = {
    "dna.gz": "c436e2cfba3242c70c4348f8e0a9458d441e76746331b093a6e8cee12527b8a2",
    "letter.gz": "363df4e9e14e2fbbb961fc7d7d5c260868002de370f807a1d0a42359b8604b69",
    "poker.gz": "db06219c1199145e7ecc8dcab6e37a43f2534f9100f1dd768cda57fae6843aa9",
    "poker_IdxAsso.gz": "a5fa721b899a9b28d335b98df3848274464feaa4dfcd1772429b6b50d082c760",
    "satimage_sub.gz": "002d69484bed8e03bf155730a9f74a25fa4eedf1758d400091dce469811ae9fb",
    "shuttle_IdxAsso.gz": "17f9372611b2684b2a216714aefe24233d95bc81810f3faef4df74002d4b2089",
    "w8a_IdxAsso.gz": "99f50abd3c35b758d2331e415d0b51c45367a99e4c0f17c9782be71d2810dca8",
}

# name -> (rows, features, positives), from the data README (dna: after repair).
DATASETS = {
    "australian": (690, 14, 307),
    "breast_cancer": (683, 10, 239),
    "diabetes": (768, 8, 268),
    "dna": (3186, 180, 767),
    "fourclass": (862, 2, 307),
    "german": (1000, 24, 300),
    "glass": (214, 9, 70),
    "heart": (270, 13, 120),
    "ionosphere": (351, 34, 126),
    "letter": (15000, 16, 538),
    "liver_disorders": (345, 6, 145),
    "logs_12t": (12000, 29, 247),
    "poker": (25010, 10, 513),
    "s4": (1000, 2, 200),
    "s10": (1100, 2, 100),
    "s50": (5100, 2, 100),
    "s100": (10100, 2, 100),
    "satimage_sub": (4435, 36, 415),
    "segment": (2310, 19, 330),
    "sonar": (208, 60, 97),
    "svmguide1_sub": (3089, 4, 1089),
    "svmguide2": (391, 20, 117),
    "svmguide3": (1284, 21, 337),
    "svmguide4": (612, 10, 119),
    "vehicle": (846, 18, 199),
    "vowel": (528, 10, 48),
}
# Only the fold files of these exist (their data files could not be obtained).
FOLDS_ONLY = {"w8a": 49749, "shuttle": 43500}


def _data_file(stem: str) -> DataFile:
    """The DataFile of ``koil/<stem>`` or ``koil/<stem>.gz``, whichever is stored; it is fetched
    with the other files of its set, as ``koil-<set>``."""
    stored = stem if stem in _SHA else stem + ".gz"
    name = stem.removesuffix("_IdxCv").removesuffix("_IdxAsso")
    return DataFile(
        "koil/" + stored,
        _SHA[stored],
        _URL + stem,
        content_sha256=_CONTENT_SHA.get(stored, ""),
        note="The stored copy is gzip-compressed (gzip -9 -n)." if stored.endswith(".gz") else "",
        fetch_name="koil-" + name,
    )


def koil_files(name: str) -> list[DataFile]:
    """The stored files of one KOIL set: its data file and its two fold files, those that exist
    (``w8a`` and ``shuttle`` have only their fold files)."""
    parts = (name, name + "_IdxCv", name + "_IdxAsso")
    return [_data_file(part) for part in parts if part in _SHA or part + ".gz" in _SHA]
