"""Adaptive PERT's parameters for the eBPF controller (``pert_adaptive``): the simulator's
``pert-adaptive`` controller fields (Kotla 2008, Chapters III and IV; defaults the thesis's),
their ranges in the kernel, and their fixed point (``bpf/pert_adaptive_algo.h``, derived as
the Rust reference ``pert_adaptive/fixed.rs`` does)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from .loader import MAX_TIME_MS, PPM, PROB_ONE, SRTT_SHIFT, PertParamError, _round, check_min_rtt_window, min_rtt_window_us, refuse_given_p, refuse_lost_precision

#: Largest alpha_max: alpha in millionths stays below 2^32.
MAX_ALPHA = 4000.0
#: Largest ramp_pole_frac and alpha_period_rtts (their products stay exact in 64 bits).
MAX_FACTOR = 1000.0
#: The kernel keeps at most this many loss intervals per estimator.
MAX_WEIGHTS = 8


@dataclass
class PertAdaptiveParams:
    """Adaptive PERT in the thesis's units; every field of the simulator's
    ``PertAdaptiveConfig`` (times in ms here, ns there)."""

    #: min_thresh T1: the curve starts to rise; high-speed mode below it (Ch. II, III.B).
    t_min_ms: float = 5.0
    #: max_thresh T2: the probability reaches p_max (Ch. II).
    t_max_ms: float = 10.0
    #: Response probability at T2 (Ch. II).
    p_max: float = 0.05
    #: History weight of srtt_0.99 (spec C3).
    srtt_weight: float = 0.99
    #: Cap of alpha (Ch. III.B: 32).
    alpha_max: float = 32.0
    #: Compete mode above this fraction of q_max (Ch. III.B: 0.5).
    compete_frac: float = 0.5
    #: The curve reaches 1 at this fraction of q_max (Ch. III.B: 0.65).
    t3_frac: float = 0.65
    #: Floor the third threshold at 2 T2 (spec C2).
    t3_floor: bool = True
    #: Pole of the compete target's ramp below compete_frac q_max, fraction of q_max (spec Appendix X).
    ramp_pole_frac: float = 0.01
    #: Initial q_max (Ch. IV: T2, 10 ms).
    q_max_init_ms: float = 10.0
    #: Where q_max comes from: "sample" (rtt - P) or "srtt" (srtt - P) (spec C5).
    q_max_source: str = "sample"
    #: Decrease on a loss: "adaptive" (q / (q + q_max)) or "half" (spec C6).
    loss_beta: str = "adaptive"
    #: alpha is adapted every this many RTTs (Ch. III.B: 5).
    alpha_period_rtts: float = 5.0
    #: alpha step per period in high-speed mode (spec C8).
    high_speed_step: float = 0.5
    #: alpha step per period in compete mode (spec C8).
    compete_step: float = 0.1
    #: alpha factor per period in safe mode (spec C8).
    safe_decay: float = 0.9
    #: Weights of the loss-interval estimators, most recent first (Ch. IV).
    interval_weights: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2)
    #: Early responses in slow start too (spec A.2.5: no).
    respond_in_slow_start: bool = False
    #: P over a sliding window of this many ms (Linux's tcp_min_rtt estimator; an extension);
    #: None: the smallest RTT sample of the connection (the theses, spec C4).
    min_rtt_window_ms: float | None = None

    def validate(self) -> None:
        """Raise :class:`PertParamError` (field and allowed range) for what the kernel code cannot take."""

        def in_range(name: str, lo: float, hi: float, lo_open: bool = False) -> None:
            v = getattr(self, name)
            ok = (lo < v if lo_open else lo <= v) and v <= hi
            if not ok:
                raise PertParamError(name, f"must lie in {'(' if lo_open else '['}{lo:g}, {hi:g}], got {v}")

        in_range("t_min_ms", 0, MAX_TIME_MS)
        in_range("t_max_ms", 0, MAX_TIME_MS)
        if not self.t_min_ms < self.t_max_ms:
            raise PertParamError.ordered("t_min_ms", "t_max_ms", f"{self.t_min_ms} ms", f"{self.t_max_ms} ms", "greater than")
        in_range("p_max", 0, 1, lo_open=True)
        if not 0 < self.srtt_weight < 1:
            raise PertParamError("srtt_weight", f"must lie in (0, 1), got {self.srtt_weight}")
        in_range("alpha_max", 1, MAX_ALPHA)
        in_range("compete_frac", 0, 1, lo_open=True)
        in_range("t3_frac", 0, 1, lo_open=True)
        if self.t3_frac < self.compete_frac:
            raise PertParamError.ordered("compete_frac", "t3_frac", self.compete_frac, self.t3_frac, "at least")
        in_range("ramp_pole_frac", 0, MAX_FACTOR, lo_open=True)
        in_range("q_max_init_ms", 0.001, MAX_TIME_MS)
        in_range("alpha_period_rtts", 0, MAX_FACTOR, lo_open=True)
        in_range("high_speed_step", 0, MAX_ALPHA)
        in_range("compete_step", 0, MAX_ALPHA)
        in_range("safe_decay", 0, 1, lo_open=True)
        if self.q_max_source not in ("sample", "srtt"):
            raise PertParamError("q_max_source", f"must be one of sample, srtt, got {self.q_max_source!r}")
        if self.loss_beta not in ("adaptive", "half"):
            raise PertParamError("loss_beta", f"must be one of adaptive, half, got {self.loss_beta!r}")
        w = self.interval_weights
        if not 1 <= len(w) <= MAX_WEIGHTS:
            raise PertParamError("interval_weights", f"needs 1 to {MAX_WEIGHTS} weights, got {len(w)}")
        for i, x in enumerate(w):
            if not 0 <= x <= 1:
                raise PertParamError("interval_weights", f"each weight must lie in [0, 1], got {x} at position {i}")
        check_min_rtt_window(self.min_rtt_window_ms)
        if sum(w) <= 0:
            raise PertParamError("interval_weights", f"must sum to a positive number, got {sum(w)}")
        for i, x in enumerate(w):
            if 0 < x and _round(x * PPM) == 0:
                raise PertParamError("interval_weights", f"a positive weight must be at least 5e-07 (the kernel code counts millionths), got {x} at position {i}")
        refuse_lost_precision(
            self,
            times=("t_min_ms", "t_max_ms", "min_rtt_window_ms"),
            millionths=("srtt_weight", "alpha_max", "compete_frac", "t3_frac", "ramp_pole_frac", "alpha_period_rtts", "high_speed_step", "compete_step", "safe_decay"),
            below_one=("srtt_weight",),
        )

    @classmethod
    def from_sim_config(cls, cfg: dict) -> "PertAdaptiveParams":
        """From the simulator's PertAdaptiveConfig (JSON / TOML form, times in ns)."""
        refuse_given_p(cfg)
        kw: dict = {}
        for f in fields(cls):
            if f.name.endswith("_ms"):
                ns = cfg.get(f.name.removesuffix("_ms") + "_ns")
                if ns is not None:
                    kw[f.name] = ns / 1e6
            elif f.name in cfg:
                kw[f.name] = tuple(cfg[f.name]) if f.name == "interval_weights" else cfg[f.name]
        return cls(**kw)

    def fixed(self) -> dict:
        """``struct perta_params`` of bpf/pert_adaptive_algo.h (the vectors' ``fixed``)."""

        def scaled(ms: float) -> int:
            return (_round(ms * 1e6) // 1000) << SRTT_SHIFT

        def ppm(x: float) -> int:
            return _round(x * PPM)

        return {
            "t_min": scaled(self.t_min_ms),
            "t_max": scaled(self.t_max_ms),
            "p_max": _round(min(max(self.p_max, 0.0), 1.0) * PROB_ONE),
            "weight_ppm": ppm(min(max(self.srtt_weight, 0.0), 1.0)),
            "respond_in_slow_start": int(self.respond_in_slow_start),
            "q_max_init": max(1, scaled(self.q_max_init_ms)),
            "alpha_max": ppm(self.alpha_max),
            "compete_frac": ppm(self.compete_frac),
            "t3_frac": ppm(self.t3_frac),
            "ramp_pole_frac": ppm(self.ramp_pole_frac),
            "alpha_period_rtts": ppm(self.alpha_period_rtts),
            "high_speed_step": ppm(self.high_speed_step),
            "compete_step": ppm(self.compete_step),
            "safe_decay": ppm(self.safe_decay),
            "weights": [ppm(w) for w in self.interval_weights],
            "t3_floor": int(self.t3_floor),
            "q_max_srtt": int(self.q_max_source == "srtt"),
            "loss_half": int(self.loss_beta == "half"),
            "min_rtt_window_us": min_rtt_window_us(self.min_rtt_window_ms),
        }

    def loader_args(self) -> list[str]:
        """``name=value`` arguments of the loader (weights comma-separated)."""
        return [f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in self.fixed().items()]
