"""Build hook for the one compiled module; all metadata is in pyproject.toml.

``imbalance_stream.base._encode`` (C, no dependency beyond Python's headers) is the fast path of
``FeatureSpace.encode``. It is optional: if no C compiler is available the build goes on without
it and the package runs the same checks in Python (slower on the dict API, same results).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "imbalance_stream.base._encode",
            sources=["imbalance_stream/base/_encode.c"],
            optional=True,
        )
    ]
)
