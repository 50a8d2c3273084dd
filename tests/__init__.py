"""Unit, property, codegen-against-interpreter, notebook and browser tests, mirroring the
packages (``tests/test_layering.py`` names the layers); ``data/`` holds the recorded search logs
and the programs copied from Lift's tests, ``golden/`` the golden kernels."""
