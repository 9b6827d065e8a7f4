// SPDX-License-Identifier: GPL-2.0
/*
 * ns3-dumbbell: the ns-3 side of `pertlab validate ns3`. One dumbbell, every
 * parameter from the command line, one JSON object of measurements on stdout.
 *
 * Built by python/pertlab/validate/ns3build.py against the headers and
 * libraries of the pinned `ns3` pip wheel (no ns-3 source build). The Python
 * side (python/pertlab/validate/translate.py) turns a pertlab scenario into
 * these arguments; this program makes no modelling choice of its own beyond
 * the topology and the measurements below.
 *
 * Topology: flow i runs from sender i over an access link (accessRate,
 * accessDelays[i]) to router A, over the bottleneck A -> B (rate,
 * bottleneckDelay; the discipline `queueDisc` with `queueAttrs`) and over an
 * access link of the same delay to receiver i. Access links carry a 1000-packet
 * FIFO (pertlab's default buffer). The bottleneck device's own transmit queue
 * holds one packet, so that the backlog lives in the queue disc where the AQM
 * sees it; the average queue counts both. With `lossRate`, each packet arriving
 * at router B over the bottleneck is lost with that probability.
 *
 * TCP: BulkSendApplication i starts at starts[i] seconds; the socket type and
 * every TCP default come from `--tcp` and `--defaults` ("Path=Value|...",
 * handed to Config::SetDefault).
 *
 * Measured over [warmup, end] seconds: the time-weighted backlog (queue disc
 * plus device queue, packets), the packets arriving at, dropped by (before
 * enqueue or after dequeue) and marked by the bottleneck's queue disc, the
 * IP bytes the bottleneck starts sending, each flow's bytes delivered to its
 * sink, and flow `cwndFlow`'s congestion window (segments) every
 * `sampleInterval` seconds from its start.
 *
 * Left out: reverse traffic, web traffic, different RTTs per direction.
 */
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The point-to-point header ns-3 adds to every IP packet on the wire, bytes.
constexpr uint32_t PPP_HEADER_BYTES = 2;
/// IPv4 and TCP headers without options, bytes (pertlab's packet size counts them).
constexpr uint32_t TCP_IP_HEADER_BYTES = 40;
/// pertlab's default buffer of a link that is not the bottleneck, packets.
constexpr uint32_t ACCESS_BUFFER_PKTS = 1000;

double g_start = 0; // measurement window, seconds
double g_end = 0;

bool
InWindow()
{
    double t = Simulator::Now().GetSeconds();
    return t >= g_start && t <= g_end;
}

/// Time-weighted integral of the bottleneck backlog over the window.
struct Backlog
{
    uint32_t disc = 0;
    uint32_t device = 0;
    double last = 0;
    double area = 0;

    void Advance()
    {
        double now = Simulator::Now().GetSeconds();
        double from = std::max(last, g_start);
        double to = std::min(now, g_end);
        if (to > from)
        {
            area += (disc + device) * (to - from);
        }
        last = now;
    }
};

Backlog g_backlog;
uint64_t g_arrivals = 0;
uint64_t g_drops = 0;
uint64_t g_marks = 0;
uint64_t g_txBytes = 0;
std::vector<uint64_t> g_rxBytes;
uint32_t g_cwndSegments = 0;
uint32_t g_segmentSize = 0;
std::vector<std::pair<double, double>> g_cwndSeries;

void
OnDiscLength(uint32_t, uint32_t n)
{
    g_backlog.Advance();
    g_backlog.disc = n;
}

void
OnDeviceLength(uint32_t, uint32_t n)
{
    g_backlog.Advance();
    g_backlog.device = n;
}

void
OnEnqueue(Ptr<const QueueDiscItem>)
{
    g_arrivals += InWindow();
}

void
OnDropBeforeEnqueue(Ptr<const QueueDiscItem>, const char*)
{
    g_arrivals += InWindow();
    g_drops += InWindow();
}

void
OnDropAfterDequeue(Ptr<const QueueDiscItem>, const char*)
{
    g_drops += InWindow();
}

void
OnMark(Ptr<const QueueDiscItem>, const char*)
{
    g_marks += InWindow();
}

void
OnPhyTxBegin(Ptr<const Packet> p)
{
    if (InWindow())
    {
        g_txBytes += p->GetSize() - PPP_HEADER_BYTES;
    }
}

void
OnSinkRx(std::size_t flow, Ptr<const Packet> p, const Address&)
{
    if (InWindow())
    {
        g_rxBytes[flow] += p->GetSize();
    }
}

void
OnCwnd(uint32_t, uint32_t cwnd)
{
    g_cwndSegments = cwnd / g_segmentSize;
}

void
SampleCwnd(double interval)
{
    g_cwndSeries.emplace_back(Simulator::Now().GetSeconds(), g_cwndSegments);
    Simulator::Schedule(Seconds(interval), &SampleCwnd, interval);
}

/// From the flow's start on: follow its window and sample it every `interval` seconds.
void
ConnectCwnd(Ptr<BulkSendApplication> app, double interval)
{
    app->GetSocket()->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnCwnd));
    SampleCwnd(interval);
}

/// "a|b|c" split at `sep`, empty items dropped.
std::vector<std::string>
Split(const std::string& text, char sep)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, sep))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

/// "Name=Value" into its two halves; aborts naming the argument otherwise.
std::pair<std::string, std::string>
Assignment(const std::string& item, const char* argument)
{
    auto eq = item.find('=');
    NS_ABORT_MSG_IF(eq == std::string::npos, "--" << argument << ": expected Name=Value, got " << item);
    return {item.substr(0, eq), item.substr(eq + 1)};
}

} // namespace

int
main(int argc, char* argv[])
{
    uint64_t rate = 10000000;
    uint64_t bottleneckDelayNs = 38000000;
    uint64_t accessRate = 1000000000;
    std::string accessDelays = "1000000";
    std::string starts = "0";
    double duration = 60;
    double warmup = 12;
    double end = 60;
    uint32_t seed = 1;
    uint32_t packetSize = 1500;
    std::string queueDisc = "ns3::FifoQueueDisc";
    std::string queueAttrs;
    std::string tcp = "ns3::TcpNewReno";
    std::string defaults;
    double lossRate = 0;
    double sampleInterval = 0;
    uint32_t cwndFlow = 0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("rate", "bottleneck rate, bit/s", rate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay, ns", bottleneckDelayNs);
    cmd.AddValue("accessRate", "access link rate, bit/s", accessRate);
    cmd.AddValue("accessDelays", "each pair's access link delay, ns, comma separated", accessDelays);
    cmd.AddValue("starts", "each flow's start time, s, comma separated", starts);
    cmd.AddValue("duration", "simulated time, s", duration);
    cmd.AddValue("warmup", "start of the measurement window, s", warmup);
    cmd.AddValue("end", "end of the measurement window, s", end);
    cmd.AddValue("seed", "RngRun", seed);
    cmd.AddValue("packetSize", "IP packet size of a full segment, bytes", packetSize);
    cmd.AddValue("queueDisc", "bottleneck queue disc TypeId", queueDisc);
    cmd.AddValue("queueAttrs", "its attributes, Name=Value|...", queueAttrs);
    cmd.AddValue("tcp", "TCP congestion control TypeId", tcp);
    cmd.AddValue("defaults", "Config::SetDefault Path=Value|...", defaults);
    cmd.AddValue("lossRate", "Bernoulli loss probability of a packet crossing the bottleneck", lossRate);
    cmd.AddValue("sampleInterval", "cwnd sampling interval, s (0: none)", sampleInterval);
    cmd.AddValue("cwndFlow", "the flow whose cwnd is sampled", cwndFlow);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    g_start = warmup;
    g_end = end;

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(tcp)));
    g_segmentSize = packetSize - TCP_IP_HEADER_BYTES;
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(g_segmentSize));
    for (const auto& item : Split(defaults, '|'))
    {
        auto [path, value] = Assignment(item, "defaults");
        Config::SetDefault(path, StringValue(value));
    }

    std::vector<std::string> delayItems = Split(accessDelays, ',');
    std::vector<std::string> startItems = Split(starts, ',');
    std::size_t flows = startItems.size();
    NS_ABORT_MSG_IF(flows == 0, "--starts: at least one flow");
    NS_ABORT_MSG_IF(delayItems.size() != 1 && delayItems.size() != flows,
                    "--accessDelays: one delay or one per flow (" << flows << ")");
    g_rxBytes.assign(flows, 0);

    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(flows);
    NodeContainer receivers;
    receivers.Create(flows);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper bottleneck;
    // ns-3 sends PPP_HEADER_BYTES more per packet than pertlab: the rate is raised by as much, so
    // that a full-size packet takes the same time on the wire in both.
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate * (packetSize + PPP_HEADER_BYTES) / packetSize)));
    bottleneck.SetChannelAttribute("Delay", TimeValue(NanoSeconds(bottleneckDelayNs)));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize("1p")));
    NetDeviceContainer core = bottleneck.Install(routers.Get(0), routers.Get(1));

    if (lossRate > 0)
    {
        Ptr<RateErrorModel> loss = CreateObject<RateErrorModel>();
        loss->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        loss->SetAttribute("ErrorRate", DoubleValue(lossRate));
        core.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    }

    TrafficControlHelper aqm;
    aqm.SetRootQueueDisc(queueDisc);
    for (const auto& item : Split(queueAttrs, '|'))
    {
        auto [name, value] = Assignment(item, "queueAttrs");
        Config::SetDefault(queueDisc + "::" + name, StringValue(value));
    }
    QueueDiscContainer discs = aqm.Install(core.Get(0));
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, ACCESS_BUFFER_PKTS)));
    fifo.Install(core.Get(1));

    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.252");
    address.Assign(core);
    std::vector<Ipv4Address> sinks;
    for (std::size_t i = 0; i < flows; ++i)
    {
        uint64_t delayNs = std::stoull(delayItems.size() == 1 ? delayItems[0] : delayItems[i]);
        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(accessRate)));
        access.SetChannelAttribute("Delay", TimeValue(NanoSeconds(delayNs)));
        NetDeviceContainer left = access.Install(senders.Get(i), routers.Get(0));
        NetDeviceContainer right = access.Install(routers.Get(1), receivers.Get(i));
        fifo.Install(left);
        fifo.Install(right);
        address.NewNetwork();
        address.Assign(left);
        address.NewNetwork();
        sinks.push_back(address.Assign(right).GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    constexpr uint16_t PORT = 5000;
    for (std::size_t i = 0; i < flows; ++i)
    {
        double start = std::stod(startItems[i]);
        BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(sinks[i], PORT));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer app = source.Install(senders.Get(i));
        app.Start(Seconds(start));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), PORT));
        ApplicationContainer sinkApp = sink.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0));
        sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, i));
        if (sampleInterval > 0 && i == cwndFlow)
        {
            Simulator::Schedule(Seconds(start) + NanoSeconds(1), &ConnectCwnd, DynamicCast<BulkSendApplication>(app.Get(0)), sampleInterval);
        }
    }

    Ptr<QueueDisc> disc = discs.Get(0);
    disc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnDiscLength));
    disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
    disc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBeforeEnqueue));
    disc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfterDequeue));
    disc->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    Ptr<PointToPointNetDevice> device = DynamicCast<PointToPointNetDevice>(core.Get(0));
    device->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnDeviceLength));
    device->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTxBegin));

    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    g_backlog.Advance();

    double window = g_end - g_start;
    std::printf("{\"avg_queue_pkts\": %.9g, \"arrivals\": %llu, \"drops\": %llu, \"marks\": %llu, \"tx_bytes\": %llu,"
                " \"window_s\": %.9g, \"rx_bytes\": [",
                g_backlog.area / window, (unsigned long long)g_arrivals, (unsigned long long)g_drops,
                (unsigned long long)g_marks, (unsigned long long)g_txBytes, window);
    for (std::size_t i = 0; i < flows; ++i)
    {
        std::printf("%s%llu", i ? ", " : "", (unsigned long long)g_rxBytes[i]);
    }
    std::printf("], \"cwnd\": [");
    for (std::size_t i = 0; i < g_cwndSeries.size(); ++i)
    {
        std::printf("%s[%.9g, %.9g]", i ? ", " : "", g_cwndSeries[i].first, g_cwndSeries[i].second);
    }
    std::printf("]}\n");
    Simulator::Destroy();
    return 0;
}
