"""PERT on real Linux hosts: the eBPF congestion control and a namespace testbed.

- :mod:`pertlab.linux.build`: compiles ``bpf/`` (clang for the BPF object,
  the system C compiler for the loader and the vector harness) and
  ``native/delayline.c``.
- :mod:`pertlab.linux.loader`: registers / unregisters ``pert`` and reads its
  counters.
- :mod:`pertlab.linux.scenario`: the testbed's scenario file.
- :mod:`pertlab.linux.testbed`: sender / router / receiver namespaces with a
  real bottleneck and a user-space delay line; a run and its results.
- :mod:`pertlab.linux.flows`: the bulk senders and the receiver run inside
  the namespaces.
- :mod:`pertlab.linux.runs`: run directories and their locks; removing what
  runs whose driver died left behind.
- :mod:`pertlab.linux.compare`: a testbed scenario in the simulator, side by side.
- :mod:`pertlab.linux.cpu_cost`: CPU cost of the congestion controls through the testbed
  (BPF run time per call, CPU time per MB; Kotla's Table VI).

See docs/linux.md.
"""

#: Most simulator seeds ``testbed compare --sim-seeds`` takes (:func:`pertlab.linux.compare.compare`);
#: here, where the command line reads it without importing the simulator.
MAX_SIM_SEEDS = 100
