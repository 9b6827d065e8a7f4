"""The ``bpf(2)`` system call from Python, for what needs it in process rather than through
``bpftool``: turning on run-time statistics (:mod:`.cpu_cost`) and reading one map value at a
known instant (a process to spawn takes milliseconds, tens of them on a loaded host, and a
queue at 10 Mbit/s moves a frame every 1.2 ms).

Only the commands used here; their ``union bpf_attr`` layouts follow include/uapi/linux/bpf.h.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct

BPF_MAP_LOOKUP_ELEM = 1
BPF_MAP_GET_FD_BY_ID = 14
BPF_ENABLE_STATS = 32  # Linux 5.8
BPF_F_LOCK = 4  # lookup flag: copy a value holding a bpf_spin_lock under that lock
_NR_BPF = {"x86_64": 321, "aarch64": 280}


def bpf(cmd: int, attr: ctypes.Array) -> int:
    """``bpf(cmd, attr, sizeof attr)``; its result (a descriptor for some commands), or OSError."""
    nr = _NR_BPF.get(platform.machine())
    if nr is None:
        raise OSError(f"the bpf system call number of {platform.machine()} is not known here")
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.syscall(ctypes.c_long(nr), ctypes.c_int(cmd), attr, ctypes.c_uint(len(attr)))
    if r < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"bpf command {cmd}: {os.strerror(err)}")
    return r


def map_fd(map_id: int) -> int:
    """A descriptor of the loaded map ``map_id`` (needs CAP_SYS_ADMIN); the caller closes it."""
    attr = ctypes.create_string_buffer(12)  # map_id, next_id, open_flags
    struct.pack_into("I", attr, 0, map_id)
    return bpf(BPF_MAP_GET_FD_BY_ID, attr)


def map_lookup(fd: int, key: bytes, value_size: int, flags: int = 0) -> bytes:
    """The value of ``key`` in the map behind ``fd``, as the kernel copies it out."""
    k = ctypes.create_string_buffer(key, len(key))
    v = ctypes.create_string_buffer(value_size)
    attr = ctypes.create_string_buffer(32)  # map_fd, pad, key, value, flags
    struct.pack_into("IIQQQ", attr, 0, fd, 0, ctypes.addressof(k), ctypes.addressof(v), flags)
    bpf(BPF_MAP_LOOKUP_ELEM, attr)
    return v.raw
