"""What the package knows by name, readable without importing it: the short names of its public
classes, the registered protocols, the scenarios in ``imbalance_stream/scenarios`` and those of the
papers' protocols in a checkout.

Commands that only list names (``imbalance-stream list``) and specs that name one class
(``"ACOG"``) read :data:`CLASSES` instead of importing every subpackage, each of which brings
numba, River and numpy. The table is written by :func:`imbalance_stream.registry.write_catalog`
from :func:`imbalance_stream.registry.scan` (``python -m imbalance_stream.registry`` after adding,
renaming or removing a public class); ``tests/test_scenario.py`` checks that it is current. This
module imports nothing of the package: the registry reads it, and writes it.

The protocols a scenario may name (:func:`registered`) are the papers' (:data:`PROTOCOLS`, the
functions of the ``reproduce/`` folder of a checkout, which is not installed) and those that
installed packages declare under the entry-point group :data:`GROUP`;
:mod:`imbalance_stream.evaluate.protocols` imports and runs them. :func:`reproductions` finds the
``reproduce`` package the papers' names refer to, and :func:`paper_scenarios` its scenario files,
without importing anything of it.
"""

from __future__ import annotations

import importlib.util
import pathlib

__all__ = [
    "CLASSES",
    "GROUP",
    "PROTOCOLS",
    "bundled",
    "paper_scenarios",
    "registered",
    "reproductions",
]

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


#: The papers' protocols, in the ``reproduce/`` folder of a checkout: each name is the dotted path
#: of its function, ``"reproduce.<paper>.<module>:<function>"``. An explicit list, not a pattern,
#: so that no other function of ``reproduce/`` (or of a ``reproduce/`` planted beside a scenario
#: file) can be named; a new protocol of ``reproduce/`` is added here, and
#: tests/test_protocol_registry.py checks that the list holds every protocol the scenario files of
#: ``reproduce/`` name, and that each name is a function there.
PROTOCOLS: tuple[str, ...] = (
    "reproduce.acog.figures:fig1_3",
    "reproduce.acog.figures:fig2_4",
    "reproduce.acog.figures:fig5",
    "reproduce.acog.figures:fig6",
    "reproduce.acog.figures:fig7",
    "reproduce.acog.figures:fig8",
    "reproduce.acog.figures:fig9_10",
    "reproduce.acog.protocol:table2",
    "reproduce.acog.protocol:table5_6",
    "reproduce.acog.protocol:table8",
    "reproduce.acog.table3:table3",
    "reproduce.dcil.protocol:table5_1",
    "reproduce.dcil.protocol:table5_3",
    "reproduce.density_ratio.cross_digits:fig4_2",
    "reproduce.density_ratio.cross_digits:fig4_3",
    "reproduce.density_ratio.cross_digits:tables4_5_6",
    "reproduce.density_ratio.protocol:fig5_3_4",
    "reproduce.density_ratio.protocol:fig5_5",
    "reproduce.density_ratio.protocol:fig5_6",
    "reproduce.density_ratio.protocol:lockmm_neighbourhood",
    "reproduce.density_ratio.protocol:solver_tolerance",
    "reproduce.density_ratio.protocol:table5_2_3",
    "reproduce.density_ratio.protocol:table5_4",
    "reproduce.density_ratio.protocol:table5_5",
    "reproduce.density_ratio.sampling_bias:ddr_synthetic",
    "reproduce.density_ratio.sampling_bias:table4_2_iwsvm",
    "reproduce.density_ratio.sampling_bias:tables4_2_4",
    "reproduce.density_ratio.shift:e1",
    "reproduce.density_ratio.shift:fig6_1",
    "reproduce.density_ratio.shift:fig6_5_6",
    "reproduce.density_ratio.shift:table6_1",
    "reproduce.density_ratio.shift:table6_1_regressions",
    "reproduce.density_ratio.shift:table6_3",
    "reproduce.koil.gaps:oracle_grid",
    "reproduce.koil.protocol:fig3_1",
    "reproduce.koil.protocol:fig3_2",
    "reproduce.koil.protocol:fig3_3",
    "reproduce.koil.protocol:table3_2",
    "reproduce.koil.protocol:table3_3",
    "reproduce.koil.protocol:table4_1",
    "reproduce.lasvm.active_protocol:table4_3",
    "reproduce.lasvm.active_protocol:table5_3",
    "reproduce.lasvm.active_protocol:waveform_sweep",
    "reproduce.lasvm.curves:curves",
    "reproduce.lasvm.curves:mnist_cache",
    "reproduce.lasvm.curves:reprocess_sweep",
    "reproduce.lasvm.protocol:mnist_ovr",
    "reproduce.lasvm.protocol:table3_2",
    "reproduce.lasvm.protocol:table6_1",
    "reproduce.lasvm.protocol:table6_3",
)

#: The entry-point group under which an installed package registers protocols, name ->
#: ``"module:function"``; in its ``pyproject.toml``, a table
#: ``[project.entry-points."imbalance_stream.protocols"]`` holding
#: ``my_table = "my_package.protocols:table"``.
GROUP = "imbalance_stream.protocols"

#: The package of the papers' protocols (the first part of every name of :data:`PROTOCOLS`).
_REPRODUCE = "reproduce"


def registered() -> dict[str, str]:
    """The registered protocols, name -> ``"module:function"``: :data:`PROTOCOLS` (each its own
    path) and those of the :data:`GROUP` entry points of the installed packages.

    Reading the entry points reads the packages' metadata and imports nothing. A name of
    :data:`PROTOCOLS` wins over an entry point of the same name, so no package can redirect the
    papers' protocols.
    """
    import importlib.metadata  # a tenth of a second: not for the commands that only list names

    names = {point.name: point.value for point in importlib.metadata.entry_points(group=GROUP)}
    names.update((name, name) for name in PROTOCOLS)
    return names


def reproductions(near: str | pathlib.Path | None = None) -> pathlib.Path | None:
    """The folder of the ``reproduce`` package that the names of :data:`PROTOCOLS` refer to: where
    Python finds it, else in ``near`` (a file or folder) or the first folder above it that holds
    one; ``None`` where there is none (an installed package, away from a checkout). Nothing of it
    is imported."""
    spec = importlib.util.find_spec(_REPRODUCE)  # a top-level name: its finders run, not its code
    if spec is not None and spec.submodule_search_locations:
        return pathlib.Path(next(iter(spec.submodule_search_locations)))
    if near is None:
        return None
    start = pathlib.Path(near).resolve()
    for folder in [start, *start.parents]:
        if (folder / _REPRODUCE / "__init__.py").is_file():
            return folder / _REPRODUCE
    return None


def paper_scenarios(near: str | pathlib.Path | None = None) -> list[pathlib.Path]:
    """The scenario files of the papers' protocols: the TOML files beside the modules of
    :data:`PROTOCOLS` in the package :func:`reproductions` finds from ``near``; none without
    one."""
    package = reproductions(near)
    if package is None:
        return []
    folders = {package.joinpath(*name.partition(":")[0].split(".")[1:-1]) for name in PROTOCOLS}
    return sorted(path for folder in folders for path in folder.glob("*.toml"))


def bundled() -> dict[str, pathlib.Path]:
    """The scenarios shipped with the package (``imbalance_stream/scenarios/*.toml``), by name."""
    folder = pathlib.Path(__file__).resolve().parent / "scenarios"
    return {path.stem: path for path in sorted(folder.glob("*.toml"))}
