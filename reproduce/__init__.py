"""The papers' reproductions: one folder per paper, not installed with the package.

Each folder holds the paper's protocol (``protocol.py``), its published numbers
(``published.csv``), the scenarios that run it (``*.toml``, one command each) and its results page
(``README.md``, our numbers beside the paper's). ``common`` holds what every protocol shares.
Run a scenario from a checkout: ``imbalance-stream run reproduce/acog/table8.toml``.
"""
