"""PERT on real Linux hosts: the eBPF congestion control and a namespace testbed.

- :mod:`pertlab.linux.build`: compiles ``bpf/`` (clang for the BPF object,
  the system C compiler for the loader and the vector harness).
- :mod:`pertlab.linux.loader`: registers / unregisters ``pert`` and reads its
  counters.
- :mod:`pertlab.linux.testbed`: sender / router / receiver namespaces with a
  real bottleneck and a user-space delay line.

See docs/linux.md.
"""
