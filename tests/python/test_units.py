import pytest

from pertlab.units import format_rate, format_time, parse_rate, parse_size, parse_time


@pytest.mark.parametrize(
    ("text", "bps"),
    [
        ("150Mbps", 150_000_000),
        ("1Gbps", 1_000_000_000),
        ("10kbps", 10_000),
        ("10Kbps", 10_000),
        ("100 Mbit/s", 100_000_000),
        ("2.5Gb/s", 2_500_000_000),
        ("12.5MB/s", 100_000_000),  # bytes: x 8
        ("12.5MBps", 100_000_000),
        ("1.5e6", 1_500_000),  # plain number: bit/s
        ("64bps", 64),
        (1_000_000, 1_000_000),
        (2.5e6, 2_500_000),
    ],
)
def test_rates(text, bps):
    assert parse_rate(text) == bps


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("60ms", 60_000_000),
        ("2s", 2_000_000_000),
        ("500us", 500_000),
        ("500µs", 500_000),
        ("10ns", 10),
        ("1min", 60_000_000_000),
        ("0.1s", 100_000_000),
        ("1.5", 1_500_000_000),  # plain number: seconds
        (0.06, 60_000_000),
        ("0", 0),
    ],
)
def test_times(text, ns):
    assert parse_time(text) == ns


@pytest.mark.parametrize(("text", "n"), [("1500B", 1500), ("64KB", 64_000), ("64KiB", 65_536), ("1MB", 10**6), ("40", 40)])
def test_sizes(text, n):
    assert parse_size(text) == n


@pytest.mark.parametrize("text", ["150Mpbs", "fast", "", "Mbps", "10 m/s", "1e400Mbps", True, None, [1]])
def test_bad_rates_name_the_field_and_the_accepted_forms(text):
    with pytest.raises(ValueError) as e:
        parse_rate(text, "--bw")
    msg = str(e.value)
    assert msg.startswith("--bw: ")
    assert "150Mbps" in msg and "bit/s" in msg


def test_bad_time_and_size_messages():
    with pytest.raises(ValueError, match=r"^rtt: cannot read '60 parsecs' as a time .*60ms"):
        parse_time("60 parsecs", "rtt")
    with pytest.raises(ValueError, match=r"unknown unit 'Mbps'.*1500B"):
        parse_size("3Mbps")


def test_bits_and_bytes_differ_by_eight():
    assert parse_rate("1MBps") == 8 * parse_rate("1Mbps")


def test_formatting_reads_back():
    for bps in (150_000_000, 1_500_000_000, 64_000, 12):
        assert parse_rate(format_rate(bps)) == bps
    for ns in (60_000_000, 2_000_000_000, 500_000, 7):
        assert parse_time(format_time(ns)) == ns


def test_integers_are_exact_up_to_the_cores_largest():
    """Issue 25: times were parsed through a float, so u64 nanoseconds near 2^64 were rounded
    (and then refused); the arithmetic is exact now."""
    assert parse_time("18446744073709551615ns") == 2**64 - 1
    assert parse_time(0.1) == 100_000_000
    assert parse_rate("12.3456789012345678Gbps") == 12_345_678_901
    assert parse_time("1e-999999s") == 0  # rounds to 0 without building a huge fraction


@pytest.mark.parametrize("value", ["18446744073709551616ns", "1e300s", 1e300, "1e400", 2**70, "600 years"])
def test_too_large_or_unreadable_values_are_errors_naming_the_field(value):
    with pytest.raises(ValueError, match=r"^duration: ") as e:
        parse_time(value, "duration")
    assert "Traceback" not in str(e.value) and "60ms" in str(e.value)
