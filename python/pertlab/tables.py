"""Column types of the result tables, and the polars frames built from the core's rows and
columns. Importing this module imports polars: :mod:`pertlab.results` imports it when a table
is first read, so that a run printed as JSON, and the summary, need no DataFrame (issue 21's
start-up time)."""

from __future__ import annotations

from typing import Any

import polars as pl

# Known column types; columns the core adds later are inferred.
FLOW_SCHEMA = {
    "id": pl.UInt32, "cc": pl.String, "label": pl.String, "src": pl.String, "dst": pl.String, "start_s": pl.Float64,
    "goodput_mbps": pl.Float64, "goodput_bytes": pl.UInt64, "segments_sent": pl.UInt64, "segments_received": pl.UInt64,
    "retransmits": pl.UInt64, "lost_retransmits": pl.UInt64, "drops": pl.UInt64, "retransmit_drops": pl.UInt64, "drop_rate": pl.Float64, "timeouts": pl.UInt64, "rto_wait_s": pl.Float64, "fast_recoveries": pl.UInt64,
    "ecn_reductions": pl.UInt64, "early_responses": pl.UInt64, "probe_echoes": pl.UInt64, "mean_r": pl.Float64, "high_speed_s": pl.Float64, "safe_s": pl.Float64,
    "compete_s": pl.Float64, "hystart_train_exits": pl.UInt64, "hystart_train_cwnd": pl.Float64, "hystart_delay_exits": pl.UInt64,
    "hystart_delay_cwnd": pl.Float64, "base_rtt_ms": pl.Float64, "ack_policy": pl.String, "data_mbps": pl.Float64,
    "acks_sent": pl.UInt64, "ack_mbps": pl.Float64, "data_ack_ratio": pl.Float64, "pacing": pl.Boolean,
    "rtt_correction": pl.Boolean, "video_packets": pl.UInt64, "video_late": pl.UInt64, "video_late_fraction": pl.Float64,
    "video_success": pl.Boolean, "video_t_mu": pl.Float64, "probe": pl.Boolean,
    "rtt_samples": pl.UInt64, "rtt_mean_ms": pl.Float64, "rtt_min_ms": pl.Float64, "rtt_max_ms": pl.Float64,
}  # fmt: skip
QUEUE_SCHEMA = {
    "link": pl.String, "from": pl.String, "to": pl.String, "discipline": pl.String, "rate_bps": pl.UInt64,
    "limit_pkts": pl.UInt32, "limit_bytes": pl.UInt64, "avg_queue_pkts": pl.Float64,
    "avg_queue_bytes": pl.Float64, "avg_queue_norm": pl.Float64, "arrivals": pl.UInt64,
    "departures": pl.UInt64, "drops": pl.UInt64, "drops_overflow": pl.UInt64, "drops_early": pl.UInt64,
    "drops_forced": pl.UInt64, "drops_departure": pl.UInt64, "marks": pl.UInt64, "drop_rate": pl.Float64,
    "mark_rate": pl.Float64, "utilization": pl.Float64, "link_losses": pl.UInt64,
}  # fmt: skip
CONTROLLER_SCHEMA = {
    "label": pl.String, "flows": pl.UInt32, "goodput_mbps": pl.Float64, "share": pl.Float64,
    "segments_sent": pl.UInt64, "segments_received": pl.UInt64, "drops": pl.UInt64, "drop_rate": pl.Float64,
}  # fmt: skip
QUEUE_POSITION_SCHEMA = {"label": pl.String, "position": pl.UInt32, "count": pl.UInt64}
VIDEO_PLAYOUT_SCHEMA = {
    "flow": pl.UInt32, "startup_delay_s": pl.Float64, "packets": pl.UInt64, "late": pl.UInt64, "late_fraction": pl.Float64, "success": pl.Boolean,
}  # fmt: skip
UDP_SCHEMA = {
    "id": pl.UInt32, "src": pl.String, "dst": pl.String, "sent": pl.UInt64, "received": pl.UInt64,
    "dropped": pl.UInt64, "throughput_mbps": pl.Float64,
}  # fmt: skip
SCHEDULER_SCHEMA = {
    "link": pl.String, "from": pl.String, "to": pl.String, "scheduler": pl.String, "classes": pl.UInt32,
    "decisions": pl.UInt64, "ops_per_decision": pl.Float64, "window_k": pl.UInt32,
}  # fmt: skip
CLASS_SCHEMA = {
    "link": pl.String, "from": pl.String, "to": pl.String, "class": pl.UInt32, "arrivals": pl.UInt64, "drops": pl.UInt64,
    "departures": pl.UInt64, "mean_wait_ms": pl.Float64, "mean_wait_tx": pl.Float64, "ratio_to_next": pl.Float64,
    "windows": pl.UInt64, "window_ratio_p5": pl.Float64, "window_ratio_p25": pl.Float64, "window_ratio_p50": pl.Float64,
    "window_ratio_p75": pl.Float64, "window_ratio_p95": pl.Float64,
}  # fmt: skip
QUEUE_SERIES_SCHEMA = {
    "t_s": pl.Float64, "queue": pl.UInt32, "len_pkts": pl.UInt32, "len_bytes": pl.UInt64, "probability": pl.Float64,
    "avg": pl.Float64, "max_p": pl.Float64, "utilization": pl.Float64,
}  # fmt: skip
FLOW_SERIES_SCHEMA = {
    "t_s": pl.Float64, "flow": pl.UInt32, "cwnd": pl.UInt32, "ssthresh": pl.UInt32, "srtt_ms": pl.Float64,
    "delivered_bytes": pl.UInt64, "mode": pl.String, "alpha": pl.Float64, "beta": pl.Float64, "p": pl.Float64,
    "p_early": pl.Float64, "qdelay_ms": pl.Float64, "q_max_ms": pl.Float64, "r": pl.Float64,
    "p_response": pl.Float64,
}  # fmt: skip
CLASS_TRACE_SCHEMA = {
    "link": pl.String, "from": pl.String, "to": pl.String, "t_s": pl.Float64, "class": pl.UInt32, "wait_ms": pl.Float64, "wait_tx": pl.Float64,
}  # fmt: skip

#: The per-packet trace (monitor.trace_flows): table name -> (column prefix in the core's output, schema).
TRACE_TABLES = {
    "trace_rtt": ("rtt_", {"t_s": pl.Float64, "flow": pl.UInt32, "ms": pl.Float64, "seq": pl.UInt32, "cwnd": pl.UInt32, "queue_pkts": pl.UInt32}),
    "trace_losses": ("loss_", {"t_s": pl.Float64, "flow": pl.UInt32}),
    "trace_drops": ("drop_", {"t_s": pl.Float64, "flow": pl.UInt32}),
}

def rows_frame(rows: list[dict[str, Any]], schema: dict[str, Any]) -> pl.DataFrame:
    if not rows:
        return pl.DataFrame(schema=schema)
    return pl.DataFrame(rows, schema_overrides=schema, infer_schema_length=None)


def columns_frame(cols: dict[str, list[Any]], schema: dict[str, Any]) -> pl.DataFrame:
    """A frame of the columns ``cols`` with the types of ``schema``; a column of the schema
    missing from ``cols`` (result files written before it existed) is null."""
    rows = len(next(iter(cols.values()), []))
    known = {k: pl.Series(k, cols.get(k, [None] * rows), dtype=t) for k, t in schema.items()}
    extra = {k: pl.Series(k, v) for k, v in cols.items() if k not in schema}
    return pl.DataFrame({**known, **extra})
