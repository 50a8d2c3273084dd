"""Case studies, each a saved derivation run end to end on a device.

    demo        ``workbench demo``: a saved derivation (ICFP 2015 Fig. 3 by default) run,
                checked and timed step by step, next to NumPy
    reductions  the seven reduction versions of the slides (PACT Sect. 5.1): their
                derivations, first kernels, bandwidth and recorded measurements
"""
