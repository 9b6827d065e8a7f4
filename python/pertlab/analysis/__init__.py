"""Closed-form analyses beside the simulator: ``pertlab analyze ...`` (docs/cli.md).

- :func:`vegas_parking_lot`: the equilibrium of TCP Vegas flows on a parking lot
  of congested gateways (Hua, MPhil thesis, CUHK 2002, Section 3.3, eqs. 3.5 to 3.13).
"""

from .vegas_parking_lot import VegasParkingLot, vegas_parking_lot

__all__ = ["VegasParkingLot", "vegas_parking_lot"]
