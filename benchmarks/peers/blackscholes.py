"""Black-Scholes as Lift's ``blackScholes`` writes it (its constants, its polynomial with
``a3 * a4 * k^7``), vectorised: a GPU's work-items four options each, a CPU's a long chunk of
vectors of eight or sixteen, the cumulative normal distribution computed in every lane at
once with ``select`` in place of the branch."""

from __future__ import annotations

from .core import Peer, Target, map_peer

# counted from the formula, each transcendental function one: the five parameters 20,
# d1 and d2 13, the cumulative normal distribution 27 twice, the two prices 13
FLOPS_PER_OPTION = 100

CND = """
T cnd(T d) {
    T big_l = fabs(d);
    T k1 = 1.0f / (1.0f + 0.2316419f * big_l);
    T k2 = k1 * k1;
    T k5 = k2 * k2 * k1;
    T w = 1.0f - 2.506628273f * exp(-big_l * big_l / 2.0f)
        * (0.319381530f * k1 + -0.356563782f * k2 + 1.781477937f * -1.821255978f * k5 * k2
           + 1.330274429f * k5);
    return select(w, 1.0f - w, d < 0.0f);
}
"""

BODY = """
T s = 10.0f * r + 100.0f * (1.0f - r);
T k = s;
T t = 1.0f * r + 10.0f * (1.0f - r);
T rate = 0.01f * r + 0.05f * (1.0f - r);
T v = 0.01f * r + 0.10f * (1.0f - r);
T sqrt_t = sqrt(t);
T d1 = (log(s / k) + (rate + v * v * 0.05f) * t) / v * sqrt_t;
T d2 = d1 - v * sqrt_t;
T c1 = cnd(d1), c2 = cnd(d2);
T exp_rt = exp(-t * rate);
call = s * c1 - k * exp_rt * c2;
put = k * exp_rt * (1.0f - c2) - s * (1.0f - c1);
"""


def flops(args) -> float:
    return FLOPS_PER_OPTION * args[0].size


def black_scholes(kind: str, args, target: Target) -> Peer:
    (r,) = args
    return map_peer("blackScholes", kind, "vectors of options, the branch a select", r.size,
                    {"r": r}, ["call", "put"], BODY, lambda call, put: (call, put),
                    flops(args), target, helpers=CND)


PEERS = {"blackScholes": (black_scholes, flops)}
