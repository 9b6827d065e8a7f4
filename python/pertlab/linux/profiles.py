"""Path profiles for the testbed's delay line: the six client kinds of Kotla (2008), Ch. V.E.

The thesis's live experiments (Figs 13 to 17) ran downloads from two servers at Texas A&M
(College Station, TX) to PlanetLab clients in China (cn), France (fr), New Zealand (nz),
Sweden (se), and to a DSL and a cable modem host in College Station. It gives no RTT, jitter or
loss figures for these paths, so every number here is a choice from public measurements, each
named in ``source`` (docs/linux.md, "Path profiles", has the table and the references):

- RTTs: WonderProxy's city-to-city pings (Reinheimer, "Miles per Millisecond", Feb 2011; the
  nearest published measurements to the thesis's 2008 with a Dallas end point; College Station
  is about 250 km from Dallas), with the legs that table lacks estimated from great-circle
  distance at 100 km per ms of RTT (light in fibre, 200 km/ms each way) plus routing slack.
- Loss: PingER (SLAC, ICFA-SCIC reports): from North America, losses to North America, Europe,
  East Asia and Oceania below 0.1 %; China among the regions that lagged.
- Access links: Dischinger et al., "Characterizing residential broadband networks", IMC 2007
  (the thesis's reference [10] for RTT variability on cable and DSL): DSL last-mile delays of
  over 10 ms from interleaving, with little variation; cable with more jitter from DOCSIS's
  request-grant upstream scheduling; low loss on idle links. Barakat and Darcie, "Delay
  characterization of cable access networks", IEEE Comm. Letters, Apr 2007: cable delays are
  multimodal with a long tail under load (hence a heavy-tailed jitter here).

A profile fills the fields a scenario does not give: ``bottleneck.delay`` (the round trip,
split half each way), ``bottleneck.rate`` for the two access-link profiles (the modem is the
bottleneck there; the PlanetLab paths' bottlenecks are unknown and left to the scenario),
``path.jitter`` (per direction: each direction draws its own), ``path.loss`` (per direction)
and ``path.order``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PathProfile", "PROFILES", "describe", "profile_names"]


@dataclass(frozen=True)
class PathProfile:
    name: str
    title: str
    rtt: str  #: base round-trip delay (the constant part, both directions)
    jitter: dict  #: the ``path.jitter`` table, per direction
    loss: dict  #: the ``path.loss`` table, per direction
    source: str  #: where the numbers come from, and what is a choice
    rate: str | None = None  #: the access link's downstream rate, when the modem is the bottleneck
    order: str = "keep"
    extra: dict = field(default_factory=dict)


_WONDERPROXY = "WonderProxy pings, Feb 2011 (wonderproxy.com/blog/miles-per-milisecond)"
_PINGER = "PingER / ICFA-SCIC: losses from North America to Europe, East Asia, Oceania below 0.1 %"
_DISCHINGER = "Dischinger et al., IMC 2007 (the thesis's [10])"

PROFILES: dict[str, PathProfile] = {
    p.name: p
    for p in (
        PathProfile(
            "cn", "China (PlanetLab client, e.g. a Beijing university)", "230ms",
            {"dist": "exponential", "scale": "4ms"},
            {"model": "gilbert", "p_good_bad": 0.001, "p_bad_good": 0.25, "loss_bad": 1.0, "loss_good": 0.0},
            f"RTT: Dallas-Fremont 44.6 ms ({_WONDERPROXY}) plus California-Beijing about 180 ms (9,500 km "
            "great circle, trans-Pacific routing), rounded to 230 ms: a choice. Jitter (exponential, mean 4 ms "
            "each way) and bursty loss (Gilbert-Elliott, stationary 0.4 %, bursts of 4 packets on average): "
            f"choices for a congested trans-Pacific path; {_PINGER}, China being one of the regions behind.",
        ),  # fmt: skip
        PathProfile(
            "fr", "France (PlanetLab client, Paris)", "131ms",
            {"dist": "normal", "scale": "0.5ms", "sd": "0.5ms"},
            {"model": "bernoulli", "rate": 0.0002},
            f"RTT: Dallas-Paris 130.9 ms ({_WONDERPROXY}). Jitter (normal, mean 0.5 ms, sd 0.5 ms each way, "
            f"truncated at 0): a choice for a research-network path. Loss 0.02 %: a choice below {_PINGER}.",
        ),  # fmt: skip
        PathProfile(
            "nz", "New Zealand (PlanetLab client, Auckland)", "175ms",
            {"dist": "normal", "scale": "1ms", "sd": "1ms"},
            {"model": "bernoulli", "rate": 0.0005},
            f"RTT: Dallas-Fremont 44.6 ms ({_WONDERPROXY}) plus California-Auckland about 130 ms (10,500 km "
            "great circle, the Southern Cross cable): 175 ms, an estimate. Jitter (normal, mean 1 ms, sd 1 ms "
            f"each way): a choice. Loss 0.05 %: a choice below {_PINGER}.",
        ),  # fmt: skip
        PathProfile(
            "se", "Sweden (PlanetLab client, Stockholm)", "140ms",
            {"dist": "normal", "scale": "0.5ms", "sd": "0.5ms"},
            {"model": "bernoulli", "rate": 0.0002},
            f"RTT: Dallas-New York 36.8 ms ({_WONDERPROXY}) plus New York-Stockholm about 100 ms (6,300 km "
            "great circle, via London or Amsterdam): 140 ms, an estimate. Jitter and loss as France (choices; "
            f"{_PINGER}).",
        ),  # fmt: skip
        PathProfile(
            "us-dsl", "US DSL modem host (College Station, TX)", "30ms",
            {"dist": "uniform", "scale": "2ms"},
            {"model": "bernoulli", "rate": 0.0005},
            f"{_DISCHINGER}: DSL last-mile delays often over 10 ms from interleaving, steady (little jitter). "
            "RTT 30 ms to a server in the same town (interleaving both ways plus the ISP's backbone), jitter "
            "U(0, 2 ms) each way, loss 0.05 %, a 3 Mbit/s downstream (a common DSL tier of 2007-2008): choices.",
            rate="3Mbps",
        ),  # fmt: skip
        PathProfile(
            "us-cable", "US cable modem host (College Station, TX)", "15ms",
            {"dist": "pareto", "scale": "3ms", "shape": 2.5},
            {"model": "bernoulli", "rate": 0.0005},
            f"{_DISCHINGER}: cable last-mile delays lower than DSL's but more variable (DOCSIS request-grant "
            "scheduling); Barakat and Darcie 2007: multimodal cable delays with a long tail. RTT 15 ms, "
            "heavy-tailed jitter (Pareto II, mean 3 ms, shape 2.5, each way), loss 0.05 %, 6 Mbit/s "
            "downstream: choices.",
            rate="6Mbps",
        ),  # fmt: skip
    )
}


def profile_names() -> str:
    return ", ".join(PROFILES)


def _jitter_words(j: dict) -> str:
    d = j["dist"]
    if d == "uniform":
        return f"uniform U(0, {j['scale']})"
    if d == "normal":
        return f"normal mean {j['scale']} sd {j['sd']}"
    if d == "pareto":
        return f"pareto mean {j['scale']} shape {j.get('shape', 2.5):g}"
    return f"{d} mean {j['scale']}" if d != "none" else "none"


def describe(p: PathProfile) -> str:
    """One line: name, RTT, rate, jitter and loss (each way), title."""
    loss = p.loss
    if loss["model"] == "bernoulli":
        lw = f"bernoulli {loss['rate']:g}"
    else:
        pgb, pbg, bad, good = loss["p_good_bad"], loss["p_bad_good"], loss.get("loss_bad", 1.0), loss.get("loss_good", 0.0)
        lw = f"gilbert {(pbg * good + pgb * bad) / (pgb + pbg):.3g} (bursts of {1 / pbg:g})"
    return f"{p.name:<9} rtt {p.rtt:>6}  rate {p.rate or '-':>6}  jitter {_jitter_words(p.jitter):<26} loss {lw:<30} {p.title}"
