"""What the package ships, readable without importing it: the short names of its public classes
and the scenarios in ``imbalance_stream/scenarios``.

Commands that only list names (``imbalance-stream list``) and specs that name one class
(``"ACOG"``) read :data:`CLASSES` instead of importing every subpackage, each of which brings
numba, River and numpy. The table is written by :func:`imbalance_stream.registry.write_catalog`
from :func:`imbalance_stream.registry.scan` (``python -m imbalance_stream.registry`` after adding,
renaming or removing a public class); ``tests/test_scenario.py`` checks that it is current. This
module imports nothing of the package: the registry reads it, and writes it.
"""

from __future__ import annotations

import pathlib

__all__ = ["CLASSES", "bundled"]

#: Short name -> (dotted name, kind): "estimator", "metric", "dataset", "schedule",
#: "reweighter" or "learner" (:data:`imbalance_stream.registry.KINDS`).
CLASSES: dict[str, tuple[str, str]] = {
    "A9A": ("imbalance_stream.datasets.A9A", "dataset"),
    "ACOG": ("imbalance_stream.linear_model.ACOG", "estimator"),
    "AROW": ("imbalance_stream.linear_model.AROW", "estimator"),
    "Abalone": ("imbalance_stream.datasets.Abalone", "dataset"),
    "Australian": ("imbalance_stream.datasets.Australian", "dataset"),
    "AveragedKernelPerceptron": ("imbalance_stream.kernel.AveragedKernelPerceptron", "estimator"),
    "BreastCancerWisconsin": ("imbalance_stream.datasets.BreastCancerWisconsin", "dataset"),
    "COG": ("imbalance_stream.linear_model.COG", "estimator"),
    "CPA": ("imbalance_stream.linear_model.CPA", "estimator"),
    "CSVFile": ("imbalance_stream.datasets.CSVFile", "dataset"),
    "Car": ("imbalance_stream.datasets.Car", "dataset"),
    "CodRNA": ("imbalance_stream.datasets.CodRNA", "dataset"),
    "DCILIncLPSVM": ("imbalance_stream.svm.DCILIncLPSVM", "estimator"),
    "DDRReweighter": ("imbalance_stream.density_ratio.DDRReweighter", "reweighter"),
    "DNA": ("imbalance_stream.datasets.DNA", "dataset"),
    "ExactROCAUC": ("imbalance_stream.metrics.ExactROCAUC", "metric"),
    "Forgetron": ("imbalance_stream.kernel.Forgetron", "estimator"),
    "FullSVM": ("imbalance_stream.svm.FullSVM", "estimator"),
    "German": ("imbalance_stream.datasets.German", "dataset"),
    "Gradual": ("imbalance_stream.datasets.Gradual", "schedule"),
    "IJCNN1": ("imbalance_stream.datasets.IJCNN1", "dataset"),
    "IWLSPC": ("imbalance_stream.density_ratio.IWLSPC", "learner"),
    "ImbalancedStream": ("imbalance_stream.datasets.ImbalancedStream", "dataset"),
    "ImportanceWeighted": ("imbalance_stream.density_ratio.ImportanceWeighted", "estimator"),
    "IncLPSVM": ("imbalance_stream.svm.IncLPSVM", "estimator"),
    "Iris": ("imbalance_stream.datasets.Iris", "dataset"),
    "KDENovelty": ("imbalance_stream.anomaly.KDENovelty", "estimator"),
    "KLIEPNovelty": ("imbalance_stream.anomaly.KLIEPNovelty", "estimator"),
    "KLIEPReweighter": ("imbalance_stream.density_ratio.KLIEPReweighter", "reweighter"),
    "KMMNovelty": ("imbalance_stream.anomaly.KMMNovelty", "estimator"),
    "KMMReweighter": ("imbalance_stream.density_ratio.KMMReweighter", "reweighter"),
    "KOIL": ("imbalance_stream.kernel.KOIL", "estimator"),
    "KOILBenchmark": ("imbalance_stream.datasets.KOILBenchmark", "dataset"),
    "KOILMKL": ("imbalance_stream.kernel.KOILMKL", "estimator"),
    "LASVM": ("imbalance_stream.svm.LASVM", "estimator"),
    "LASVMG": ("imbalance_stream.svm.LASVMG", "estimator"),
    "LASVMI": ("imbalance_stream.svm.LASVMI", "estimator"),
    "LASVMNC": ("imbalance_stream.svm.LASVMNC", "estimator"),
    "Letter": ("imbalance_stream.datasets.Letter", "dataset"),
    "LocKMMNovelty": ("imbalance_stream.anomaly.LocKMMNovelty", "estimator"),
    "MNIST": ("imbalance_stream.datasets.MNIST", "dataset"),
    "Magic04": ("imbalance_stream.datasets.Magic04", "dataset"),
    "MarginSampler": ("imbalance_stream.active.MarginSampler", "estimator"),
    "MulticlassDCILIncLPSVM": ("imbalance_stream.svm.MulticlassDCILIncLPSVM", "estimator"),
    "MulticlassIncLPSVM": ("imbalance_stream.svm.MulticlassIncLPSVM", "estimator"),
    "Mushrooms": ("imbalance_stream.datasets.Mushrooms", "dataset"),
    "NORMA": ("imbalance_stream.kernel.NORMA", "estimator"),
    "NoveltyStream": ("imbalance_stream.datasets.NoveltyStream", "dataset"),
    "OAMSeq": ("imbalance_stream.linear_model.OAMSeq", "estimator"),
    "OPAUC": ("imbalance_stream.linear_model.OPAUC", "estimator"),
    "PA": ("imbalance_stream.linear_model.PA", "estimator"),
    "PAUM": ("imbalance_stream.linear_model.PAUM", "estimator"),
    "PRBEP": ("imbalance_stream.metrics.PRBEP", "metric"),
    "PenDigits": ("imbalance_stream.datasets.PenDigits", "dataset"),
    "Perceptron": ("imbalance_stream.linear_model.Perceptron", "estimator"),
    "Periodic": ("imbalance_stream.datasets.Periodic", "schedule"),
    "Piecewise": ("imbalance_stream.datasets.Piecewise", "schedule"),
    "PrecisionAtT": ("imbalance_stream.metrics.PrecisionAtT", "metric"),
    "Projectron": ("imbalance_stream.kernel.Projectron", "estimator"),
    "ProjectronPlusPlus": ("imbalance_stream.kernel.ProjectronPlusPlus", "estimator"),
    "RBP": ("imbalance_stream.kernel.RBP", "estimator"),
    "ROMMA": ("imbalance_stream.linear_model.ROMMA", "estimator"),
    "SACOG": ("imbalance_stream.linear_model.SACOG", "estimator"),
    "Satimage": ("imbalance_stream.datasets.Satimage", "dataset"),
    "SelectionShift": ("imbalance_stream.datasets.SelectionShift", "dataset"),
    "Sensitivity": ("imbalance_stream.metrics.Sensitivity", "metric"),
    "ShuttleODDS": ("imbalance_stream.datasets.ShuttleODDS", "dataset"),
    "Spambase": ("imbalance_stream.datasets.Spambase", "dataset"),
    "Specificity": ("imbalance_stream.metrics.Specificity", "metric"),
    "Splice": ("imbalance_stream.datasets.Splice", "dataset"),
    "Static": ("imbalance_stream.datasets.Static", "schedule"),
    "Step": ("imbalance_stream.datasets.Step", "schedule"),
    "ULSIFNovelty": ("imbalance_stream.anomaly.ULSIFNovelty", "estimator"),
    "ULSIFReweighter": ("imbalance_stream.density_ratio.ULSIFReweighter", "reweighter"),
    "W8A": ("imbalance_stream.datasets.W8A", "dataset"),
    "Waveform": ("imbalance_stream.datasets.Waveform", "dataset"),
    "WeightedCost": ("imbalance_stream.metrics.WeightedCost", "metric"),
    "WeightedSum": ("imbalance_stream.metrics.WeightedSum", "metric"),
    "WeightedTSVM": ("imbalance_stream.density_ratio.WeightedTSVM", "learner"),
}  # end of the generated table


def bundled() -> dict[str, pathlib.Path]:
    """The scenarios shipped with the package (``imbalance_stream/scenarios/*.toml``), by name."""
    folder = pathlib.Path(__file__).resolve().parent / "scenarios"
    return {path.stem: path for path in sorted(folder.glob("*.toml"))}
