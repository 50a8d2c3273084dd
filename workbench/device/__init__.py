"""The OpenCL devices of this host and what running on one of them takes.

    opencl       the devices: found, probed once and remembered, the default chosen
                 (``WORKBENCH_DEVICE``), the OpenCL loader and its ICD files
    probe        the probe kernel each device must build, run and compute correctly, and
                 the float vector widths and private-array limits it finds
    lock         taking turns on a device (lock files; orphaned holders taken back)
    isolation    jobs in processes of their own: time limits, crashes, worker pools
    host_arrays  huge-page host arrays a CPU device uses in place (as NumPy's are)
    userdirs     the per-user private folders (device health cache, locks, ICD files)

``runtime`` builds and times kernels on them; ``run`` runs an expression on one.
"""
