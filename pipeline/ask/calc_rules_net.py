"""Calculation rules of computer networks: a frame's total delay on one link, its transmission delay
alone, Nyquist's and Shannon's limits, the hosts a prefix or mask can assign and a host's network and
broadcast addresses, CSMA/CD's shortest frame (the data link layer's windows: calc_rules_link.py).
See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_text import (
    FREQUENCY,
    NUM,
    TIME_NS,
    TIME_UNIT,
    Program,
    Rule,
    alternative,
    literal,
    mentioned,
    power_of_two,
    unique,
    value,
)

FRAME = {"B": ("B", "8"), "字节": ("B", "8"), "bit": ("bit", ""), "比特": ("bit", ""), "位": ("bit", "")}
RATE = {**{u: ("Gb/s", "1000000000") for u in ("Gb/s", "Gbps", "Gbit/s")},
        **{u: ("Mb/s", "1000000") for u in ("Mb/s", "Mbps", "Mbit/s")},
        **{u: ("kb/s", "1000") for u in ("kb/s", "Kb/s", "kbps", "Kbps", "kbit/s")},
        **{u: ("b/s", "") for u in ("b/s", "bps", "bit/s")}}
DISTANCE = {"km": ("km", "1000"), "千米": ("km", "1000"), "公里": ("km", "1000"), "m": ("m", ""), "米": ("m", "")}
SPEED = {"m/s": ("m/s", ""), "米/秒": ("m/s", ""), "km/s": ("km/s", "1000")}
RATE_UNIT = r"(Gb/s|Gbps|Gbit/s|Mb/s|Mbps|Mbit/s|kb/s|Kb/s|kbps|Kbps|kbit/s|b/s|bps|bit/s)"
BANDWIDTH = rf"带宽(?:为|是)?\s*{NUM}\s*(kHz|KHz|MHz|Hz)"
# a channel's limit asked: 最大数据传输速率, 极限速率, 最高能传多快
MAX_RATE_ASK = (r"(?:最大|最高|极限)[^，。？]{0,6}(?:速率|速度|数据率|传输率)"
                r"|(?:最大|最高|最快|最多)[^，。？]{0,4}(?:能|可以|可)[^，。？]{0,2}(?:传|发)[^，。？]{0,4}(?:多快|多少)")


RATE_DECIMALS = 2  # a limit with a logarithm is irrational (3000·log2(1001)): 29.9kb/s, not 29.9017kb/s


def _rate_result(p: Program, expression: str, bandwidth_unit: str) -> None:
    """The limit in b/s, then in the bandwidth's prefix: kHz gives kb/s, MHz Mb/s; the answer rounded
    to ``RATE_DECIMALS`` decimals in its unit (an exact limit, 24kb/s, is unchanged)."""
    shown, factor = FREQUENCY[bandwidth_unit]
    if factor:
        p.line("rate", expression, "最大数据传输速率", "b/s")
        p.line("answer", f"round(rate / {factor}, {RATE_DECIMALS})", "最大数据传输速率",
               {"kHz": "kb/s", "MHz": "Mb/s"}[shown])
    else:
        p.line("answer", f"round({expression}, {RATE_DECIMALS})", "最大数据传输速率", "b/s")


def _propagation_speed(p: Program, speed: re.Match) -> None:
    """``speed`` (a match of ``FrameDelay._SPEED``: 2×10^8m/s, 200000km/s) as the step ``speed`` in m/s."""
    if speed.group(1):
        number, exponent, unit = speed.groups()[:3]
        if unit == "km/s":
            p.line("speed_kmps", f"{number} * 10 ** {int(exponent)}", "传播速率", "km/s")
            p.line("speed", "speed_kmps * 1000", "传播速率", "m/s")
        else:
            p.line("speed", f"{number} * 10 ** {int(exponent)}", "传播速率", "m/s")
    else:
        p.in_base("speed", speed.group(4), speed.group(5), SPEED, "传播速率", "m/s")


def round_trip(p: Program, name: str, label: str, unit: str, *, one_way: Optional[re.Match] = None,
               both_ways: Optional[re.Match] = None, both_label: str = "往返时延",
               distance: Optional[re.Match] = None, speed: Optional[re.Match] = None) -> None:
    """The step ``name`` = 2τ in ``unit`` (ms or s), from exactly one of: a one-way delay τ, a delay that
    is both ways already (an RTT, a contention period: ``both_label`` names it), or the link's length
    with the signal's speed (τ = distance / speed). Each a match of ``NUM`` and ``TIME_UNIT``, or of
    ``FrameDelay._DISTANCE`` and ``_SPEED``."""
    per_ns = {"ms": "1000000", "s": "1000000000"}[unit]
    if one_way is not None or both_ways is not None:
        m = both_ways or one_way
        p.in_base("delay", m.group(1), m.group(2), TIME_NS, both_label if both_ways else "单程传播时延", "ns")
        p.line(name, f"delay / {per_ns}" if both_ways else f"2 * delay / {per_ns}", label, unit)
    else:
        p.in_base("dist", distance.group(1), distance.group(2), DISTANCE, "链路长度", "m")
        _propagation_speed(p, speed)
        p.line(name, "2 * dist / speed" + (" * 1000" if unit == "ms" else ""), label, unit)


class FrameDelay(Rule):
    """总时延 from the start of sending to the frame fully received, over one link: frame length (1000字节,
    8000bit), data rate (10Mb/s), link length (2000km), propagation speed (2×10^8 m/s, 200000km/s).
    transmit = bits / rate, propagate = distance / speed, total = the sum, in ms (μs under 1 ms).
    Acknowledgements, several hops, queueing or a frame in KB (1000 or 1024?): no program."""

    name = "frame_delay"
    _FRAME = (r"(?<![\d.^])(\d+)\s*(字节|B|bit|比特|位)(?![A-Za-z/])(?:长)?的?(?:数据)?(?:帧|分组|报文|数据帧)"
              r"|(?:帧|分组|报文)(?:的)?(?:长度?|大小)(?:为|是)?\s*(\d+)\s*(字节|B|bit|比特|位)(?![A-Za-z/])"
              r"|每(?:个|一个)?(?:数据)?(?:帧|分组)\s*(?:为|是|有|长)?\s*(\d+)\s*(字节|B|bit|比特|位)(?![A-Za-z/])")
    _RATE = rf"{NUM}\s*{RATE_UNIT}"
    _DISTANCE = rf"(?:链路|距离|线路|电缆|信道|光纤|相距)[^，。；\d]{{0,6}}{NUM}\s*(km|千米|公里|m|米)(?![/A-Za-z])"
    _SPEED = rf"{NUM}\s*[×xX*]\s*10\s*\^\s*(\d+)\s*(m/s|km/s|米/秒)|(?<![\d^.])(\d+(?:\.\d+)?)\s*(m/s|km/s|米/秒)"
    _ASK = (r"从开始发送[^，。？]{0,12}(?:收完|接收完|全部收到|完全收到|接收完毕|完全接收|全部接收)|总时延"
            r"|开始发[^，。？]{0,12}(?:收到|接收到?)最后一(?:位|个?比特|bit)"
            r"|从[^，。？]{0,4}开始发送?[^，。？]{0,12}(?:收完|接收完|全部收到|完全收到|接收完毕|完全接收|全部接收)"
            r"|(?:总共|一共)[^，。？]{0,6}(?:时间|多久)")

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or mentioned(r"确认|ACK|往返|RTT|利用率|停止等待|停等|路由器|交换机|存储转发"
                                                    r"|处理|排队|跳|窗口|吞吐|分别", q):
            return None
        frame, rate = unique(self._FRAME, q), unique(self._RATE, q)
        distance, speed = unique(self._DISTANCE, q), unique(self._SPEED, q)
        if frame is None or rate is None or distance is None or speed is None:
            return None
        length, length_unit = alternative(frame, 2)
        if speed.group(1):
            number, exponent, speed_unit = speed.groups()[:3]
            speed_value = float(number) * 10 ** int(exponent) * (1000 if speed_unit == "km/s" else 1)
        else:
            number, speed_unit = speed.group(4), speed.group(5)
            speed_value = value(number, speed_unit, SPEED)
        seconds = (value(length, length_unit, FRAME) / value(rate.group(1), rate.group(2), RATE)
                   + value(distance.group(1), distance.group(2), DISTANCE) / speed_value)
        scale, unit = ("1000", "ms") if seconds >= 1e-3 else ("1000000", "μs")
        p = Program()
        p.in_base("frame", length, length_unit, FRAME, "帧长", "bit")
        p.in_base("rate", rate.group(1), rate.group(2), RATE, "数据传输速率", "b/s")
        p.in_base("dist", distance.group(1), distance.group(2), DISTANCE, "链路长度", "m")
        _propagation_speed(p, speed)
        p.line("transmit", f"frame / rate * {scale}", "发送时延", unit)
        p.line("propagate", f"dist / speed * {scale}", "传播时延", unit)
        p.line("answer", "transmit + propagate", "总时延", unit)
        return p.source()


class NyquistRate(Rule):
    """最大数据传输速率 of a noiseless channel (奈奎斯特, 无噪声): 2 · W · log2(V), W the bandwidth, V the
    number of signal levels (16种码元状态, 4个电平). A question that also gives a signal-to-noise ratio
    (the lesser of the two limits) or asks the baud rate: no program."""

    name = "nyquist_rate"
    _LEVELS = (r"(\d+)\s*(?:种|个)(?:不同的?)?(?:码元|相位|电平|状态|信号状态|离散值|离散状态|离散电平|取值|信号)"
               r"|(\d+)\s*(?:进制码元|相位|电平)")

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"奈奎斯特|奈氏|Nyquist|无噪声|理想低通", q, re.I) or re.search(r"信噪比|S/N|香农|码元速率|波特", q):
            return None
        bandwidth, levels = unique(BANDWIDTH, q), unique(self._LEVELS, q)
        if bandwidth is None or levels is None or not re.search(MAX_RATE_ASK, q):
            return None
        v = levels.group(1) or levels.group(2)
        if int(v) < 2:
            return None
        p = Program()
        p.in_base("bandwidth", bandwidth.group(1), bandwidth.group(2), FREQUENCY, "带宽", "Hz")
        p.given("levels", v, "码元状态数")
        _rate_result(p, "2 * bandwidth * log2(levels)", bandwidth.group(2))
        return p.source()


class ShannonRate(Rule):
    """最大数据传输速率 of a noisy channel (香农): W · log2(1 + S/N); a ratio in dB is 10^(dB/10) first
    (信噪比30dB → 1000). Signal levels also given (the lesser of two limits): no program."""

    name = "shannon_rate"
    _DB = rf"信噪比(?:为|是)?\s*{NUM}\s*dB"
    _RATIO = rf"(?:信噪比|S/N)(?:为|是|=)?\s*{NUM}(?!\s*(?:dB|\d|\.))"

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"香农|Shannon|信噪比|S/N", q, re.I) or re.search(r"电平|码元|相位|状态", q):
            return None
        bandwidth, db, ratio = unique(BANDWIDTH, q), unique(self._DB, q), unique(self._RATIO, q)
        if bandwidth is None or (db is None) == (ratio is None) or not re.search(MAX_RATE_ASK, q):
            return None
        p = Program()
        p.in_base("bandwidth", bandwidth.group(1), bandwidth.group(2), FREQUENCY, "带宽", "Hz")
        if db is not None:
            p.given("db", db.group(1), "信噪比", "dB")
            p.line("snr", "10 ** (db / 10)", "信噪比的比值")
        else:
            p.given("snr", ratio.group(1), "信噪比的比值")
        _rate_result(p, "bandwidth * log2(1 + snr)", bandwidth.group(2))
        return p.source()


class TransmitDelay(Rule):
    """发送时延 (transmission delay) alone: frame length (1000B, 8000bit) and data rate (10Mb/s);
    frame / rate, in ms (μs under 1 ms). A distance or propagation speed, acknowledgements, hops,
    or a total asked for (``FrameDelay``): no program here."""

    name = "transmit_delay"
    _ASK = (r"发送时延|发送时间|传输时延|"
            r"发送(?:完|出|完毕)?[^，。？]{0,14}(?:需要|要|用|花|花费|耗时)[^，。？]{0,4}(?:多少|多长|多久)")

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or re.search(
                r"传播|距离|相距|链路长|km|千米|公里|总时延|收完|接收完|全部收到|确认|ACK|往返|RTT|利用率|停止等待|停等"
                r"|路由器|交换机|存储转发|排队|跳|窗口|吞吐|分别|最短|最小|至少", q):
            return None
        frame, rate = unique(FrameDelay._FRAME, q), unique(FrameDelay._RATE, q)
        if frame is None or rate is None:
            return None
        length, length_unit = alternative(frame, 2)
        seconds = value(length, length_unit, FRAME) / value(rate.group(1), rate.group(2), RATE)
        scale, unit = ("1000", "ms") if seconds >= 1e-3 else ("1000000", "μs")
        p = Program()
        p.in_base("frame", length, length_unit, FRAME, "帧长", "bit")
        p.in_base("rate", rate.group(1), rate.group(2), RATE, "数据传输速率", "b/s")
        p.line("answer", f"frame / rate * {scale}", "发送时延", unit)
        return p.source()


IPV4 = r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})"


def prefix_of_mask(p: Program, mask: re.Match) -> Optional[int]:
    """The prefix length a mask (a match of ``IPV4``) gives, and its program steps (the mask, then its
    one bits counted into ``prefix``); None for a mask that is not ones then zeros."""
    octets = [int(o) for o in mask.groups()]
    ones = "".join(f"{o:08b}" for o in octets) if all(o <= 255 for o in octets) else ""
    if not ones or "01" in ones:
        return None
    p.line("mask", "[" + ", ".join(str(o) for o in octets) + "]", "子网掩码")
    p.line("prefix", "0", "网络前缀长度（位）")
    p.lines.append("for octet in mask:\n    for i in range(8):\n        prefix = prefix + octet // 2 ** i % 2")
    return ones.count("1")


class SubnetHosts(Rule):
    """How many host addresses a (sub)network can assign: its prefix (``/26``, ``前缀长度为26``) or its
    mask (``子网掩码为255.255.255.192``, read bit by bit), and when a network is cut into n equal subnets
    (``划分为4个子网``, n a power of two) log2(n) more network bits. hosts = 2^(32 - prefix) - 2 (the
    all-zeros and all-ones host numbers are the network and broadcast addresses). Asked for a network
    or broadcast address, a range, several sizes, or a mask that is not ones then zeros: no program.
    32 is IPv4's address length, a convention the rule names (``conventions``)."""

    name = "subnet_hosts"
    conventions = frozenset({32.0})
    _PREFIX = rf"{IPV4}\s*/\s*(\d{{1,2}})(?!\d)|(?:前缀|网络前缀)(?:长度)?(?:为|是)?\s*(\d{{1,2}})\s*位?|(?<![\d.])/(\d{{1,2}})(?!\d)"
    _MASK = rf"(?:子网掩码|掩码)[^,，。;；\d]{{0,4}}?(?:为|是|：|:)?\s*{IPV4}"
    _SUBNETS = r"(?:划分|分)(?:为|成)\s*(\d+)\s*个(?:大小相同的|等长的|相同大小的|等大的)?子网"
    _ASK = (r"(?:主机|主机地址|IP地址|地址)(?:数|个数|数量)?[^，。？]{0,4}(?:多少|几)"
            r"|(?:多少|几)\s*(?:个|台)?\s*(?:可用的|可分配的)?\s*(?:主机|主机地址|IP地址)")

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or re.search(r"广播地址|网络地址是|地址范围|分别|各是|各有|最小|最大的|第一个|最后一个"
                                                     r"|子网号|网络号是|IPv6|聚合|超网", q):
            return None
        if not re.search(r"主机|可分配|可用|可指派|分配给", q):
            return None  # 共有多少个地址 counts all 2^h, the network and broadcast addresses too
        prefix, mask, subnets = unique(self._PREFIX, q), unique(self._MASK, q), unique(self._SUBNETS, q)
        if (prefix is None) == (mask is None):
            return None
        p = Program()
        p.given("addr_bits", "32", "地址长度（位）")
        if prefix is not None:
            if prefix.group(1) is not None:
                octets = prefix.groups()[:4]
                if any(int(o) > 255 for o in octets):
                    return None
                p.line("addr", "[" + ", ".join(literal(o) for o in octets) + "]", "地址")
            length = prefix.group(5) or prefix.group(6) or prefix.group(7)
            p.given("prefix", length, "网络前缀长度（位）")
            bits = int(length)
        else:
            addresses = {m.group(0) for m in re.finditer(IPV4, q)} - {".".join(mask.groups())}
            if len(addresses) > 1:
                return None
            for address in addresses:  # the host's address beside its mask: shown, the count does not need it
                p.line("addr", "[" + ", ".join(literal(o) for o in address.split(".")) + "]", "地址")
            bits = prefix_of_mask(p, mask)
            if bits is None:
                return None
        if subnets is not None:
            n = int(subnets.group(1))
            if not power_of_two(n) or n < 2:
                return None
            p.given("subnets", str(n), "子网个数")
            p.line("host_bits", "addr_bits - prefix - int(log2(subnets))", "主机号位数（位）")
            bits += n.bit_length() - 1
        else:
            p.line("host_bits", "addr_bits - prefix", "主机号位数（位）")
        if not 1 <= bits <= 30:
            return None
        p.line("answer", "2 ** host_bits - 2", "可分配的主机地址数")
        return p.source()


class SubnetAddresses(Rule):
    """网络地址 and/or 广播地址 of the network a host's address is in: the address with its prefix
    (``172.16.37.100/20``) or beside a mask (``子网掩码255.255.240.0``, ones then zeros). network = the
    address with its host bits cleared, broadcast = with them all set, both written dotted; the hosts
    it can assign (2^host_bits - 2) close the answer (asked or not, the count the addresses bound).
    Subnetting asked (划分为n个子网), a range or first/last host, or a second address: no program.
    32 is IPv4's address length, a convention the rule names (``conventions``)."""

    name = "subnet_addresses"
    conventions = frozenset({32.0})
    # asked, not given (分配到的网络地址为192.168.10.0/26 is a datum)
    _ASK = (r"(?:网络地址|广播地址|网络号)[^，。？?]{0,12}?(?:是|为|各是|分别是|分别为)?\s*(?:多少|什么|啥|哪个)"
            r"|(?:求|写出|给出|计算|算出|确定)[^。？?]{0,30}?(?:网络地址|广播地址|网络号)")

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or re.search(r"划分|子网号|地址范围|第一个|最后一个|最小|最大|IPv6|聚合|超网", q):
            return None
        prefix, mask = unique(SubnetHosts._PREFIX, q), unique(SubnetHosts._MASK, q)
        if (prefix is None) == (mask is None):
            return None
        addresses = {m.group(0) for m in re.finditer(IPV4, q)} - ({".".join(mask.groups())} if mask else set())
        if len(addresses) != 1:
            return None
        address, = addresses
        octets = address.split(".")
        p = Program()
        p.given("addr_bits", "32", "地址长度（位）")
        p.line("addr", "[" + ", ".join(literal(o) for o in octets) + "]", "主机地址")
        if prefix is not None:
            if prefix.group(1) is None or prefix.group(0).split("/")[0].strip() != address:
                return None  # the prefix is not written on this address
            p.given("prefix", prefix.group(5), "网络前缀长度（位）")
            bits = int(prefix.group(5))
        else:
            bits = prefix_of_mask(p, mask)
            if bits is None:
                return None
        if any(int(o) > 255 for o in octets) or not 1 <= bits <= 30:
            return None
        p.line("host_bits", "addr_bits - prefix", "主机号位数（位）")
        p.line("value", "ip_value(addr)", "主机地址的数值")
        p.line("network", "value // 2 ** host_bits * 2 ** host_bits", "网络地址的数值")
        p.line("answer_network", "to_dotted(network)", "网络地址")
        p.line("answer_broadcast", "to_dotted(network + 2 ** host_bits - 1)", "广播地址")
        p.line("answer", "2 ** host_bits - 2", "可分配的主机地址数")
        return p.source()


class MinFrameLength(Rule):
    """CSMA/CD's 最短帧长: a frame must last the contention period 2τ, so min = 2τ × rate bits. Needs the
    data rate and either the link length with the propagation speed (τ = distance / speed) or the
    one-way delay τ (``单程传播时延为25.6μs``, ``端到端的传播时延``) or the contention period 2τ itself
    (``争用期为51.2μs``). In bits, or bytes when asked (``多少字节``). A distance asked for (the inverse
    question), a rate or length that changes, or repeaters and hubs: no program."""

    name = "min_frame_length"
    _TAU = rf"(?:单程|单向|端到端)(?:的)?(?:传播)?时延(?:为|是)?\s*{NUM}\s*{TIME_UNIT}"
    _PERIOD = rf"(?:争用期|冲突窗口|往返(?:传播)?时延|往返时间|RTT)(?:为|是)?\s*{NUM}\s*{TIME_UNIT}"
    _ASK = r"最短帧长|最小帧长|帧的最小长度|帧的最短长度|最短帧|最小帧"

    def match(self, q: str) -> Optional[str]:
        far = r"(?:最远|最大|最长)(?:的)?(?:距离|传输距离|长度)?"  # the inverse question asks it; a given one is a datum
        if not re.search(self._ASK, q) or re.search(rf"{far}(?:为|是|应为|可以是|能有)?(?:多少|多远|多长)", q) \
                or re.search(r"提高|降低|变为|增加|减少|中继器|集线器|交换机|分别", q):
            return None
        rate = unique(FrameDelay._RATE, q)
        distance, speed = unique(FrameDelay._DISTANCE, q), unique(FrameDelay._SPEED, q)
        tau, period = unique(self._TAU, q), unique(self._PERIOD, q)
        if rate is None or sum((distance is not None and speed is not None, tau is not None, period is not None)) != 1:
            return None
        if (distance is None) != (speed is None):
            return None
        p = Program()
        p.in_base("rate", rate.group(1), rate.group(2), RATE, "数据传输速率", "b/s")
        round_trip(p, "period", "争用期", "s", one_way=tau, both_ways=period, both_label="争用期", distance=distance,
                   speed=speed)
        if re.search(r"多少\s*(?:字节|B)(?![A-Za-z/])|(?:字节|B)为单位", q):
            p.line("bits", "period * rate", "最短帧长", "bit")
            p.line("answer", "bits / 8", "最短帧长", "B")
        else:
            p.line("answer", "period * rate", "最短帧长", "bit")
        return p.source()
