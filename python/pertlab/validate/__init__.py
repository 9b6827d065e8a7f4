"""pertlab against the tools users already trust (docs/validation.md).

- :mod:`.ns3`: dumbbell scenarios written once in pertlab's scenario model, run in
  pertlab and in ns-3 (its pip wheel; the C++ program ``native/ns3/dumbbell.cc`` is built
  by :mod:`.ns3build`, the scenario translated by :mod:`.translate`), compared with the
  tolerances of :mod:`.tolerance`; :mod:`.report` writes the tables.
"""
