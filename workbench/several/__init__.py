"""One program on several devices at once (SkelCL's multi-device execution, SPEC 8, 14).

    distribution  SkelCL's distributions (block, copy, overlap), explicit redistribution, and
                  the rules that split a program into one program per device
    run           run(..., devices=, distributions=): one program per device, side by side,
                  each device's part an ordinary single-device run; the package's ``run``
    cluster       Dask clusters of one worker per device, pinned (``python -m
                  workbench.several.cluster SCHEDULER`` starts a host's workers)
"""
