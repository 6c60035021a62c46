"""BLAS threads of the Kendall engine: the cores this process may use and OpenBLAS's thread-local switch.

Worker threads of :mod:`dppca.stats.kendall` each pin their BLAS calls to one thread, so that
blocks of the pair matrix run on all cores without oversubscribing them.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

# Worker threads: elementwise numpy work runs on one core per call, so blocks
# of the pair matrix are spread over the cores, each worker's BLAS calls pinned to one
# thread with OpenBLAS's thread-local switch (measured on 2 cores, n = 20000,
# d = 50: 1.0 s against 1.8 s for one worker with threaded BLAS, and with the blocks of
# dppca.stats.blas_blocks 0.67-0.72 s against 1.25 s, wall, 3 runs each; two workers
# with threaded BLAS oversubscribe the cores and were slower still; and one
# worker with threaded BLAS took 17 s when other processes held a core, as
# each small BLAS call waits for a descheduled helper thread). Without that
# switch one worker is used.
_OPENBLAS_LOCAL_THREADS = (
    "openblas_set_num_threads_local",
    "scipy_openblas_set_num_threads_local64_",
    "scipy_openblas_set_num_threads_local",
)


def available_cores():
    """Cores this process may run on (the affinity mask on Linux)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@functools.lru_cache(maxsize=None)
def openblas_local_thread_setters():
    """``openblas_set_num_threads_local`` of each loaded OpenBLAS, or ().

    The setting is thread-local (OpenBLAS >= 0.3.27), so calling it from our
    own worker threads leaves the caller's BLAS threading untouched. Loaded
    libraries are read from /proc/self/maps; elsewhere this returns ().
    """
    try:
        with open("/proc/self/maps") as maps:
            fields = [line.split(maxsplit=5) for line in maps]
    except OSError:
        return ()
    paths = sorted({f[5].strip() for f in fields if len(f) == 6 and "openblas" in f[5]})
    setters = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _OPENBLAS_LOCAL_THREADS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], ctypes.c_int
                setters.append(setter)
                break
    return tuple(setters)


#: The pin of :func:`single_blas_thread`: entries in force and the thread counts it replaced.
_PIN_LOCK = threading.Lock()
_PIN = {"depth": 0, "saved": ()}


@contextlib.contextmanager
def single_blas_thread():
    """Inside the block, OpenBLAS runs each call on one thread; on the last exit the count in
    force before the first entry is restored.

    ``openblas_set_num_threads_local`` is thread-local only in OpenMP builds of OpenBLAS; in
    pthreads builds (NumPy's and SciPy's wheels) it sets the count of the whole process. So
    the entries are counted under a lock: the first saves the counts, every entry (the worker
    threads' too) sets 1, and only the last exit restores. Each worker restoring its own
    "previous" count raced: a worker that read 1 (set by the other) could restore last and
    leave the caller's process on one BLAS thread after a Kendall call (the 2000 x 2000 GEMM
    measured after one: 46 against 92 GFLOP/s before).

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> before = [i["num_threads"] for i in threadpool_info()]
    >>> with single_blas_thread():
    ...     pass
    >>> [i["num_threads"] for i in threadpool_info()] == before
    True
    """
    setters = openblas_local_thread_setters()
    with _PIN_LOCK:
        previous = tuple(setter(1) for setter in setters)
        if _PIN["depth"] == 0:
            _PIN["saved"] = previous
        _PIN["depth"] += 1
    try:
        yield
    finally:
        with _PIN_LOCK:
            _PIN["depth"] -= 1
            if _PIN["depth"] == 0:
                for setter, value in zip(setters, _PIN["saved"]):
                    setter(value)


def pinned_map(work, chunks) -> list:
    """``[work(c) for c in chunks]``, one thread per chunk (one chunk: the calling thread), every
    call with BLAS on one thread (:func:`single_blas_thread`); the caller's pin is held until
    every worker is done, so the count in force before is restored once, at the end.

    Examples
    --------
    >>> pinned_map(lambda c: sum(c), [[1, 2], [3, 4]])
    [3, 7]
    """
    def pinned(chunk):
        with single_blas_thread():
            return work(chunk)

    with single_blas_thread():
        if len(chunks) == 1:
            return [work(chunks[0])]
        with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
            return list(pool.map(pinned, chunks))


__all__ = ["available_cores", "openblas_local_thread_setters", "pinned_map", "single_blas_thread"]
