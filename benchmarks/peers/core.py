"""A hand-written peer as data, bound to a device, run and timed.

A peer is one OpenCL program for one of Lift's programs at one size, for one
kind of device, with its launches, its inputs as the program takes them (nothing repacked on
the host) and how its output buffers read back as the program's output. Bound to a device
(``Peer.bind``) it runs once (``Bound.output``) or is timed by OpenCL profiling events like
the derived kernels (``Bound.time``: a ``Spread`` of ``repeat`` runs, each from its first
launch's start to its last launch's end).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from string import Template

import numpy as np

from benchmarks.timing import Spread, of_samples


@dataclass(frozen=True)
class Launch:
    """One kernel launch: the kernel's name, its global and local sizes (None: the
    driver's choice) and its arguments, each a buffer's name."""

    kernel: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    args: tuple[str, ...]


@dataclass(frozen=True)
class Peer:
    """A hand-written kernel for ``program`` on a ``kind`` of device ("cpu" or "gpu").

    ``design`` says in a line how it computes; ``defines`` become ``#define`` lines in front
    of ``source`` (sizes and scalar arguments, as a hand-written kernel specialised to its
    problem has them); ``flops`` counts the arithmetic of one run (the program's own count,
    the same for every kernel of it); ``result`` turns the output buffers (by name) into the
    program's output as its NumPy reference lays it out."""

    program: str
    kind: str
    design: str
    source: str
    launches: tuple[Launch, ...]
    inputs: dict[str, np.ndarray]
    outputs: dict[str, tuple[tuple[int, ...], type]]
    result: Callable[[dict[str, np.ndarray]], object]
    flops: float
    defines: dict[str, object] = field(default_factory=dict)
    options: tuple[str, ...] = ()

    @property
    def full_source(self) -> str:
        lines = [f"#define {k} {_literal(v)}" for k, v in self.defines.items()]
        return "\n".join(lines + [self.source])

    @property
    def bytes(self) -> int:
        """The bytes the program must read and write at least: its array inputs and its
        outputs (as ``lift_programs.bytes_moved`` counts them)."""
        return sum(a.nbytes for a in self.inputs.values() if a.size > 1) + sum(
            int(np.prod(shape)) * np.dtype(dtype).itemsize
            for shape, dtype in self.outputs.values())

    def bind(self, device: str | None = None) -> Bound:
        """The program built on ``device`` (``cpu``, ``gpu``, ``P:D`` or part of a name),
        its inputs uploaded and its kernels' arguments set. A build error raises
        ``PeerBuildError`` with the compiler's log."""
        return Bound(self, device)

    def time(self, device: str | None = None, repeat: int = 10) -> Spread:
        return self.bind(device).time(repeat)


class PeerBuildError(Exception):
    """A peer's program that the device's compiler refused (the log in the message)."""


def _literal(value) -> str:
    if isinstance(value, float | np.floating):
        return f"{float(np.float32(value))!r}f"
    return str(value)


class Bound:
    """A peer on one device: its context, queue, built program and buffers."""

    def __init__(self, peer: Peer, device: str | None):
        from workbench.device.opencl import find_device, opencl

        cl = opencl()
        self.peer = peer
        self.info, dev = find_device(device)
        self.context = cl.Context([dev])
        self.queue = cl.CommandQueue(self.context,
                                     properties=cl.command_queue_properties.PROFILING_ENABLE)
        try:
            self.program = cl.Program(self.context, peer.full_source).build(
                options=list(peer.options))
        except cl.Error as err:
            raise PeerBuildError(f"{peer.program} ({peer.kind}): {err}"[:4000]) from err
        flags = cl.mem_flags
        self.buffers = {name: cl.Buffer(self.context, flags.READ_ONLY | flags.COPY_HOST_PTR,
                                        hostbuf=np.ascontiguousarray(a))
                        for name, a in peer.inputs.items()}
        for name, (shape, dtype) in peer.outputs.items():
            nbytes = max(4, int(np.prod(shape)) * np.dtype(dtype).itemsize)
            self.buffers[name] = cl.Buffer(self.context, flags.READ_WRITE, nbytes)
        self.kernels = []
        for launch in peer.launches:
            kernel = cl.Kernel(self.program, launch.kernel)
            kernel.set_args(*(self.buffers[a] for a in launch.args))
            self.kernels.append((kernel, launch))

    def _enqueue(self) -> list:
        from workbench.device.opencl import opencl

        cl = opencl()
        return [cl.enqueue_nd_range_kernel(self.queue, kernel, launch.global_size,
                                           launch.local_size)
                for kernel, launch in self.kernels]

    def output(self):
        """One run's output, as the program's NumPy reference lays it out."""
        from workbench.device.opencl import opencl

        cl = opencl()
        self._enqueue()
        host = {}
        for name, (shape, dtype) in self.peer.outputs.items():
            host[name] = np.empty(shape, dtype)
            cl.enqueue_copy(self.queue, host[name], self.buffers[name])
        self.queue.finish()
        return self.peer.result(host)

    def time(self, repeat: int = 10, warmup: int = 1) -> Spread:
        """``repeat`` runs after ``warmup`` untimed ones, each from its first launch's start
        to its last launch's end (profiling events), in ms."""
        for _ in range(warmup):
            self._enqueue()
        self.queue.finish()
        samples = []
        for _ in range(repeat):
            events = self._enqueue()
            events[-1].wait()
            samples.append((events[-1].profile.end - events[0].profile.start) * 1e-6)
        return of_samples(samples)


# --- source pieces the peers share ------------------------------------------------------------

# Loads and stores of $w consecutive floats from element i of an array of n, the last vector
# of an array whose length is no multiple of $w read lane by lane (clamped) and written lane
# by lane (only its lanes inside the array): a CPU peer's vectors need no padded copy.
# A vector's lanes are set and read one by one through a union (Oclgrind's compiler took
# a vstore to a private array for no write and read the array back as uninitialised).
VECTOR_IO = Template("""
typedef union { float$w v; float a[$w]; } lanes$w;
float$w load$w(global const float *a, size_t i, size_t n) {
    if (i + $w <= n) return vload$w(0, a + i);
    lanes$w l;
    for (int k = 0; k < $w; k++) l.a[k] = a[min(i + k, n - 1)];
    return l.v;
}
void store$w(float$w v, global float *a, size_t i, size_t n) {
    if (i + $w <= n) { vstore$w(v, 0, a + i); return; }
    lanes$w l;
    l.v = v;
    for (int k = 0; i + k < n; k++) a[i + k] = l.a[k];
}
""")


def vector_io(width: int) -> str:
    """``load<width>`` and ``store<width>`` for vectors of ``width`` floats."""
    return VECTOR_IO.substitute(w=width)


def chunks(items: int, work_items: int) -> int:
    """Items per work-item when ``work_items`` share ``items`` in contiguous chunks."""
    return max(1, -(-items // work_items))


def cpu_work_items(items: int, units: int, per_unit: int = 4) -> int:
    """How many work-items (one a group) a CPU peer spreads ``items`` over on a device of
    ``units`` compute units: a few per core for PoCL's threads to balance, each with a long
    contiguous chunk (each group costs PoCL a scheduling step)."""
    return max(1, min(items, per_unit * units))


def round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def float_literal(x: float) -> str:
    return _literal(float(x))


# --- elementwise programs ---------------------------------------------------------------------

GPU_GROUP = 256  # work-items of a group of a GPU peer's one-dimensional launch
GPU_WIDTH = 4  # floats a GPU peer's work-item reads at once (float4: 16-byte loads)
CPU_WIDTH = 8  # floats in a CPU peer's vectors (AVX2's eight lanes)

MAP_KERNEL = Template("""
$helpers
kernel void peer($params) {
    size_t first = get_global_id(0) * CHUNK;
    size_t last = min((size_t)NV, first + CHUNK);
    for (size_t v = first; v < last; v++) {
        size_t i = v * $w;
$loads
        T $outs;
        {
$body
        }
$stores
    }
}
""")


@dataclass(frozen=True)
class Layout:
    """How a peer's elementwise work is spread: vectors of ``width`` floats, ``chunk`` of
    them per work-item, ``global_size`` work-items in groups of ``local_size``."""

    width: int
    chunk: int
    global_size: int
    local_size: int


@dataclass(frozen=True)
class Target:
    """What a peer is tuned to on its device: its compute units, and on a CPU the floats of
    its vectors (16 where the device builds and runs float16, else 8)."""

    units: int = 2
    width: int = CPU_WIDTH


def target_of(info) -> Target:
    """The target of a device (``DeviceInfo``): its compute units and its widest working
    vector of eight or sixteen floats whose built-in functions work too (the peers call
    ``exp``, ``sincos``, ``vload``: ``DeviceInfo.builtin_widths`` where the probe tells them
    apart, as on PoCL 3.0, else ``vector_widths``)."""
    widths = getattr(info, "builtin_widths", None) or info.vector_widths
    return Target(info.compute_units, 16 if 16 in widths else CPU_WIDTH)


def map_layout(kind: str, n: int, target: Target) -> Layout:
    """A GPU's work-items each one vector of four (reads of neighbouring work-items
    coalesce); a CPU's a few per core, each a long chunk of the target's vectors."""
    if kind == "gpu":
        vectors = -(-n // GPU_WIDTH)
        return Layout(GPU_WIDTH, 1, round_up(vectors, GPU_GROUP), GPU_GROUP)
    vectors = -(-n // target.width)
    items = cpu_work_items(vectors, target.units)
    return Layout(target.width, chunks(vectors, items), items, 1)


def map_peer(program: str, kind: str, design: str, n: int, inputs: dict[str, np.ndarray],
             outputs: list[str], body: str, result: Callable, flops: float, target: Target,
             helpers: str = "", defines: dict | None = None,
             options: tuple[str, ...] = ()) -> Peer:
    """A peer of an elementwise program over ``n`` elements: each input read as vectors
    (``T``, named as the input), ``body`` (OpenCL C over ``T``) sets each output's vector
    (named as the output)."""
    lay = map_layout(kind, n, target)
    t = f"float{lay.width}"
    params = ", ".join([f"global const float *restrict {k}_g" for k in inputs]
                       + [f"global float *restrict {k}_g" for k in outputs])
    source = MAP_KERNEL.substitute(
        helpers=vector_io(lay.width) + helpers,
        params=params, w=lay.width, outs=", ".join(outputs), body=body,
        loads="\n".join(f"        T {k} = load{lay.width}({k}_g, i, N);" for k in inputs),
        stores="\n".join(f"        store{lay.width}({k}, {k}_g, i, N);" for k in outputs))
    return Peer(program, kind, design, source,
                (Launch("peer", (lay.global_size,), (lay.local_size,),
                        tuple(f"{k}_g" for k in [*inputs, *outputs])),),
                {f"{k}_g": np.ascontiguousarray(v, dtype=np.float32) for k, v in inputs.items()},
                {f"{k}_g": ((n,), np.float32) for k in outputs},
                lambda host: result(*(host[f"{k}_g"] for k in outputs)), flops,
                {"T": t, "N": n, "NV": -(-n // lay.width), "CHUNK": lay.chunk,
                 **(defines or {})}, options)


# --- lanes written out: float4 records gathered into the lanes of wider vectors -------------


def gather(name: str, width: int, address: str, indent: str) -> str:
    """Lines loading ``width`` float4 records ``name0``… from ``address`` (a C expression
    of the lane ``{k}``, e.g. ``pos[min(i + {k}, (size_t)N - 1)]``)."""
    return "\n".join(f"{indent}float4 {name}{k} = {address.format(k=k)};"
                     for k in range(width))


def lanes_of(name: str, component: str, width: int) -> str:
    """A ``float<width>`` of one component of the gathered records ``name0``…."""
    return f"(float{width})(" + ", ".join(f"{name}{k}.{component}" for k in range(width)) + ")"


def lane(k: int) -> str:
    """Lane ``k``'s component name (``s0``…``s9``, ``sa``…``sf``)."""
    return f"s{k:x}"
