"""Helpers of the tests that start commands and stop them part-way."""

from __future__ import annotations

import time

import psutil


def wait_for_cpu_seconds(pid: int, seconds: float, timeout: float = 300.0) -> None:
    """Until process ``pid`` has used ``seconds`` of CPU time: a point in its work that does not
    move with the load of the machine, as a wall-clock sleep would."""
    proc = psutil.Process(pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        t = proc.cpu_times()
        if t.user + t.system >= seconds:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} did not use {seconds} s of CPU in {timeout} s")


def wait_until(cond, timeout: float):
    """``cond()``'s first true value within ``timeout`` seconds (polled every 50 ms), else its
    last value."""
    end = time.monotonic() + timeout
    while not (value := cond()) and time.monotonic() < end:
        time.sleep(0.05)
    return value
