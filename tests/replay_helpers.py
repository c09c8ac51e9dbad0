"""What the replay's tests share: the ISO 8601 texts they draw, and the scenario they write.

Not a test module (pytest collects ``test_*.py`` only); the test modules beside it import it by
name, as pytest puts this folder on the path.
"""

from hypothesis import strategies as st

#: ISO 8601 date-times, well-formed or not: impossible dates and hours, the separators the
#: readers take and some they refuse, fractions of every length (and one with a letter), zones
#: valid or out of range. The row reader, the columnar reader and the kernels must agree on each.
ISO_TEXTS = st.builds(
    lambda y, mo, d, sep, h, mi, s, frac, zone: (
        f"{y:04d}-{mo:02d}-{d:02d}{sep}{h:02d}:{mi:02d}:{s:02d}{frac}{zone}"
    ),
    st.sampled_from([0, 1, 4, 100, 1600, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 9999]),
    st.integers(0, 13),
    st.integers(0, 32),
    st.sampled_from(["T", " ", "t", "_"]),
    st.integers(0, 25),
    st.integers(0, 60),
    st.integers(0, 61),
    st.sampled_from(["", ".1", ".123", ".999999", ".1234567", ".12a"]),
    st.sampled_from(
        ["", "Z", "z", "+00:00", "-05:30", "+23:59", "+24:00", "+0530", "-00:00", "-00:60"]
    ),
)


def replay_scenario(models, metrics, replay_options="", log="", labels="[false, true]"):
    """A replay scenario over ``log.csv`` (columns time, event_id, entity, label, label_time),
    one shared model cell, a prediction line per row and a curve every 50 rows."""
    return f"""
name = "s"
kind = "replay"
[log]
path = "log.csv"
time = "time"
id = "event_id"
entity = "entity"
label = "label"
labels = {labels}
label_time = "label_time"
{log}
[models]
{models}
[metrics]
{metrics}
[replay]
per_entity = false
step = 50
window = "2h"
{replay_options}
"""
