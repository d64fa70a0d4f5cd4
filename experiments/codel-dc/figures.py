"""Ismail, Pirzada & Qazi §III-A, equation 7: link utilization under CoDel vs its target.

Drawn over Fig. 3 (``fig3.toml``: ``[plot] model``) and checked by the figure test.

N synchronized long-lived TCP flows act as one flow with window W. CoDel lets a standing
queue of C·Q build before it drops (Q = ``target``), so W peaks at W_max = C(T + Q)
(eq. 2) and halves to W_min = C(T + Q)/2 (eq. 4). The link is under-used for the
X = C(T − Q)/2 RTTs W needs to climb back to the BDP K = C·T (eq. 5), at mean throughput
(K + W_min)/(2K), and full for the Y = C·Q RTTs the queue needs to build (eq. 3):

    U = ((3T + Q)/(4T)) · ((T − Q)/(T + Q)) + 2Q/(T + Q)        (eq. 7, for Q ≤ T)

U(0) = 3/4, U(T/2) = 23/24, U(T) = 1. For Q ≥ T the window never drops below the BDP, so
U = 1 (the paper's Fig. 3: "utilization increases with target until [it] becomes greater
than T").
"""

from __future__ import annotations

#: The paper's round-trip propagation time T (§III: 300 µs), in ms, the unit of Fig. 3's axis.
RTT_MS = 0.3


def utilization(q: float, t: float) -> float:
    """Returns U(Q, T) of equation 7 (1 for Q ≥ T); ``q`` and ``t`` in the same unit.

    Raises ValueError for a negative target or a non-positive RTT.
    """
    if t <= 0 or q < 0:
        raise ValueError(f"need target >= 0 and RTT > 0, got Q={q}, T={t}")
    if q >= t:
        return 1.0
    return (3 * t + q) / (4 * t) * (t - q) / (t + q) + 2 * q / (t + q)


def fig3_utilization(target_ms: float) -> float:
    """Returns equation 7 at the paper's T = 300 µs for a CoDel target in ms (Fig. 3's model)."""
    return utilization(target_ms, RTT_MS)
