"""Budget buffers: where a new stored vector goes when a buffer of fixed size is full.

A buffer is a list of ``count`` positions (``count <= budget``) that map to slots of a shared
storage (rows of a stored-vector matrix); the functions here only decide positions, so one storage
and one Gram cache can serve several buffers (KOIL keeps one buffer per class in one pool).
Randomness comes in as uniforms drawn by the caller from its seeded generator, which keeps the
kernels deterministic and the estimators picklable.

Policies (ids of this module):

* ``RS_PLUS`` / ``RS`` (reservoir sampling): while not full, append. When full, the ``seen``-th
  item of the stream that feeds this buffer is kept with probability ``budget / seen`` and then
  replaces a uniformly chosen position; otherwise it is dropped. This keeps a uniform sample of
  the stream (Vitter's algorithm R).
* ``FIFO_PLUS`` / ``FIFO``: when full, the oldest position (the ring ``head``) is overwritten and
  the head moves on by one.
* ``UNBOUNDED``: always append (the caller grows the storage).

The ``++`` variants differ from the plain ones only in what the *caller* does with the removed
item (KOIL moves its weight onto the most similar stored vector); :func:`compensates` says which.
"""

from __future__ import annotations

from numba import njit

from .kernels import option_id

__all__ = [
    "DROP",
    "FIFO",
    "FIFO_PLUS",
    "POLICIES",
    "RS",
    "RS_PLUS",
    "UNBOUNDED",
    "advance_head",
    "compensates",
    "fifo_position",
    "place",
    "policy_id",
    "reservoir_position",
]

RS_PLUS = 0
FIFO_PLUS = 1
RS = 2
FIFO = 3
UNBOUNDED = 4

#: Policy names accepted by the estimators, mapped to the ids of this module.
POLICIES = {"rs++": RS_PLUS, "fifo++": FIFO_PLUS, "rs": RS, "fifo": FIFO, "inf": UNBOUNDED}

#: Position returned when the new item is not stored.
DROP = -1


def policy_id(name: str) -> int:
    """The id of policy ``name`` (``"rs++"``, ``"fifo++"``, ``"rs"``, ``"fifo"``, ``"inf"``)."""
    return option_id(POLICIES, "policy", name)


@njit(cache=True)
def compensates(policy):
    """Whether the policy moves a removed item's weight onto a stored one (RS++, FIFO++)."""
    return policy == RS_PLUS or policy == FIFO_PLUS


@njit(cache=True)
def reservoir_position(count, budget, seen, u_accept, u_slot):
    """Reservoir sampling: ``count`` (append) if not full; else a uniform position in
    ``[0, budget)`` with probability ``budget / seen`` (``u_accept < budget / seen``), else
    :data:`DROP`. ``seen`` counts the current item; ``u_accept`` and ``u_slot`` are U[0, 1)."""
    if count < budget:
        return count
    if u_accept * seen < budget:
        position = int(u_slot * budget)
        return position if position < budget else budget - 1
    return DROP


@njit(cache=True)
def fifo_position(count, head, budget):
    """First in, first out: ``count`` (append) if not full, else the oldest position ``head``."""
    if count < budget:
        return count
    return head


@njit(cache=True)
def place(policy, count, head, budget, seen, u_accept, u_slot):
    """Position for a new item under ``policy``: ``count`` to append, a position ``< count`` to
    overwrite, or :data:`DROP`."""
    if policy == UNBOUNDED:
        return count
    if policy == FIFO_PLUS or policy == FIFO:
        return fifo_position(count, head, budget)
    return reservoir_position(count, budget, seen, u_accept, u_slot)


@njit(cache=True)
def advance_head(policy, position, count, head, budget):
    """The FIFO head after an item went to ``position`` of a buffer that held ``count`` items:
    it moves on (mod ``budget``) when the oldest item was overwritten, else it stays."""
    if (policy == FIFO_PLUS or policy == FIFO) and position == head and count >= budget:
        return (head + 1) % budget
    return head
