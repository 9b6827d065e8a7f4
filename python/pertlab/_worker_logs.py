"""What pertlab's local Dask workers leave out of their log (imported only where Dask is used)."""

from __future__ import annotations

import logging

from distributed import WorkerPlugin

#: The message distributed's ``Worker.heartbeat`` logs when the scheduler's connection is gone.
HEARTBEAT_LOSS = "Failed to communicate with scheduler during heartbeat"


class QuietHeartbeatLoss(WorkerPlugin):
    """A Dask worker plugin for our local workers: their log drops the heartbeat that the
    scheduler cut short while the cluster closes.

    Closing a ``LocalCluster`` retires the workers and closes the scheduler; a heartbeat
    in flight then fails and the worker logs it with a traceback ("Failed to communicate
    with scheduler during heartbeat"), a race inside Dask that tells the user nothing (seen
    in a CI run of the SIGTERM test). A scheduler lost mid-run is still reported: the
    client here raises when its connection goes. The filter stays until the worker process
    ends (a teardown would remove it before the closing heartbeat fails)."""

    idempotent = True

    def setup(self, worker) -> None:
        logging.getLogger("distributed.worker").addFilter(_drop_heartbeat_loss)


def _drop_heartbeat_loss(record) -> bool:
    return not str(record.msg).startswith(HEARTBEAT_LOSS)
