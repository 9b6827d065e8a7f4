"""What pertlab's local Dask workers leave out of their log (imported only where Dask is used)."""

from __future__ import annotations

import logging

from distributed import WorkerPlugin

#: The message distributed's ``Worker.heartbeat`` logs when the scheduler's connection is gone.
HEARTBEAT_LOSS = "Failed to communicate with scheduler during heartbeat"
#: The warning distributed's worker state machine logs for each running task a closing worker
#: cancels ("Async instruction for <Task cancelled ...> ended with CancelledError").
CANCELLED_TASK = ("Async instruction for ", " ended with CancelledError")


class QuietClose(WorkerPlugin):
    """A Dask worker plugin for our local workers: their log drops what closing the cluster cuts
    short, races inside Dask that tell the user nothing.

    - Closing a ``LocalCluster`` retires the workers and closes the scheduler; a heartbeat in
      flight then fails and the worker logs it with a traceback ("Failed to communicate with
      scheduler during heartbeat"; seen in a CI run of the SIGTERM test). A scheduler lost
      mid-run is still reported: the client here raises when its connection goes.
    - A stop signal closes the cluster with runs still going; each closing worker warns that it
      cancelled its run, a line per worker on the terminal under pertlab's own "finished runs are
      kept". The runs that finished are stored before the stop (:mod:`pertlab.parallel`).

    The filters stay until the worker process ends (a teardown would remove them before the
    closing messages come)."""

    idempotent = True

    def setup(self, worker) -> None:
        logging.getLogger("distributed.worker").addFilter(_drop_heartbeat_loss)
        logging.getLogger("distributed.worker.state_machine").addFilter(_drop_cancelled_task)


def _drop_heartbeat_loss(record) -> bool:
    return not str(record.msg).startswith(HEARTBEAT_LOSS)


def _drop_cancelled_task(record) -> bool:
    message = str(record.msg)
    return not (message.startswith(CANCELLED_TASK[0]) and message.endswith(CANCELLED_TASK[1]))
