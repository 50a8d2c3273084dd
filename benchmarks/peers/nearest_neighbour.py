"""Nearest neighbour as Rodinia's ``nn`` kernel computes it: each location's Euclidean
distance to the target, one location a work-item (a GPU's work-items four neighbouring
locations each, a CPU's a long chunk of vectors of eight or sixteen)."""

from __future__ import annotations

import numpy as np

from .core import Peer, Target, map_peer

FLOPS_PER_LOCATION = 6  # two differences, two squares, a sum and a square root


def flops(args) -> float:
    return FLOPS_PER_LOCATION * args[0][0].size


def nearest_neighbour(kind: str, args, target: Target) -> Peer:
    (lat, lng), target_lat, target_lng = args
    return map_peer(
        "nearestNeighbour", kind, "one distance per location, vectors of locations",
        lat.size, {"lat": lat, "lng": lng}, ["distance"],
        "T dy = TARGET_LAT - lat, dx = TARGET_LNG - lng;\n"
        "distance = sqrt(dy * dy + dx * dx);",
        lambda d: d, flops(args), target,
        defines={"TARGET_LAT": np.float32(target_lat), "TARGET_LNG": np.float32(target_lng)})


PEERS = {"nearestNeighbour": (nearest_neighbour, flops)}
