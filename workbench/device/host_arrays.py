"""Host arrays that a CPU device reads and writes in place, backed by huge pages.

A CPU OpenCL device (PoCL) computes on host memory. Given a buffer to copy
(``CL_MEM_COPY_HOST_PTR``), it allocates that memory itself, in pages of 4 KiB; NumPy asks
Linux for transparent huge pages (2 MiB) for its large arrays. A kernel that streams through
tens of MiB then runs up to a quarter slower than NumPy on the same data, only for the pages
(more TLB misses, and hardware prefetchers stop at every page boundary). ``huge_page_array``
gives the kernels memory like NumPy's, which the device uses in place
(``CL_MEM_USE_HOST_PTR``).
"""

from __future__ import annotations

import mmap

import numpy as np

HUGE_PAGE = 2 << 20

# Below this size an array spans a few pages at most: the device's own copy serves as well.
IN_PLACE_BYTES = HUGE_PAGE


def huge_page_array(shape, dtype) -> np.ndarray:
    """An uninitialised array in a mapping of its own, aligned to 2 MiB and advised to use
    transparent huge pages where the system has them (elsewhere an ordinary page-aligned
    array). The mapping lives as long as the array."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    anonymous = getattr(mmap, "MAP_ANONYMOUS", None)
    if anonymous is None or nbytes == 0:  # no anonymous mappings (Windows): NumPy's own
        return np.empty(shape, dtype)
    size = -(-nbytes // HUGE_PAGE) * HUGE_PAGE + HUGE_PAGE
    mapping = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | anonymous)
    raw = np.frombuffer(mapping, dtype=np.uint8)
    offset = -raw.ctypes.data % HUGE_PAGE
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is not None:
        try:
            mapping.madvise(advice, offset, size - offset)
        except OSError:  # a kernel without transparent huge pages
            pass
    return raw[offset:offset + nbytes].view(dtype).reshape(shape)


def in_place_copy(array: np.ndarray) -> np.ndarray | None:
    """A huge-page copy of ``array`` for a CPU device to use in place, or None where the
    array is too small for pages to matter."""
    if array.nbytes < IN_PLACE_BYTES:
        return None
    copy = huge_page_array(array.shape, array.dtype)
    np.copyto(copy, array)
    return copy
