"""Calculation rules of the data link layer: the largest send window of GBN and SR, and the channel
utilisation of stop-and-wait. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_rules_net import FRAME, RATE, FrameDelay, round_trip
from pipeline.ask.calc_text import NUM, TIME_UNIT, Program, Rule, alternative, mentioned, unique


class SlidingWindow(Rule):
    """最大发送窗口 with n-bit sequence numbers: GBN (后退N帧) 2^n - 1; SR (选择重传) 2^(n-1), the
    receive window as large as the send window; both, in the order named, when both are named and
    asked. A receive window stated as a number: no program."""

    name = "sliding_window"
    _BITS = (r"(\d+)\s*个?(?:位|比特|bit)(?:的)?(?:帧)?(?:序号|编号|序列号)"
             r"|(?:序号|编号|序列号)(?:字段)?(?:用|为|占|长度为|长度是|长|有|采用)?\s*(\d+)\s*个?(?:位|比特|bit)")
    _GBN = r"后退N帧|回退N帧|GBN|Go-Back-N"
    _SR = r"选择重传|选择性重传|(?<![A-Za-z])SR(?![A-Za-z])"

    def match(self, q: str) -> Optional[str]:
        bits = unique(self._BITS, q)
        gbn, sr = re.search(self._GBN, q, re.I), re.search(self._SR, q)
        if bits is None or not (gbn or sr) or not re.search(
                r"发送窗口[^，。？]{0,6}(?:最大|最多)|(?:最大|最多)[^，。？]{0,4}发送窗口", q):
            return None
        if re.search(r"接收窗口[^，。？]{0,6}\d", q):
            return None
        p = Program()
        p.given("bits", bits.group(1) or bits.group(2), "序号位数")
        formulas = {"gbn": ("2 ** bits - 1", "后退N帧的最大发送窗口"), "sr": ("2 ** (bits - 1)", "选择重传的最大发送窗口")}
        named = sorted((m.start(), name) for name, m in (("gbn", gbn), ("sr", sr)) if m)
        for i, (_, name) in enumerate(named):
            expression, label = formulas[name]
            last = i == len(named) - 1
            p.line("answer" if last else f"answer_{name}", expression, label if len(named) > 1 else "最大发送窗口")
        return p.source()


class StopWaitUtilisation(Rule):
    """信道利用率 of stop-and-wait (停止等待): a frame (1000B), the data rate, and the one-way
    propagation delay (单向传播时延20ms; or 往返时延/RTT, or the link length with the signal's speed).
    One cycle sends the frame and waits for its acknowledgement: transmit + 2τ (+ the acknowledgement's
    own transmit time when its length is given); utilisation = transmit / cycle, in %. A processing
    or queueing time not taken back, a window (that is a sliding-window protocol), or an error rate: no
    program."""

    name = "stop_wait_utilisation"
    _ONE_WAY = rf"(?:单向|单程)?(?:的)?传播时延(?:为|是)?\s*{NUM}\s*{TIME_UNIT}"
    _ROUND = rf"(?:往返(?:传播)?时延|往返时间|RTT)(?:为|是)?\s*{NUM}\s*{TIME_UNIT}"
    _ACK = r"确认帧(?:的)?(?:长度?|大小)?(?:为|是)?\s*(\d+)\s*(字节|B|bit|比特|位)(?![A-Za-z/])"

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"停止等待|停止-等待|停等", q) or "利用率" not in q:
            return None
        if mentioned(r"处理|排队|窗口|出错|误码|丢失|重传", q):
            return None
        ack = unique(self._ACK, q)
        frame = unique(FrameDelay._FRAME, re.sub(self._ACK, "", q))  # the data frame's, not the acknowledgement's
        rate, rtt = unique(FrameDelay._RATE, q), unique(self._ROUND, q)
        one_way = unique(self._ONE_WAY, q) if rtt is None else None
        distance, speed = unique(FrameDelay._DISTANCE, q), unique(FrameDelay._SPEED, q)
        if frame is None or rate is None or sum((one_way is not None, rtt is not None,
                                                  distance is not None and speed is not None)) != 1:
            return None
        length, length_unit = alternative(frame, 2)
        p = Program()
        p.in_base("frame", length, length_unit, FRAME, "数据帧长", "bit")
        p.in_base("rate", rate.group(1), rate.group(2), RATE, "数据传输速率", "b/s")
        p.line("transmit", "frame / rate * 1000", "数据帧的发送时延", "ms")
        round_trip(p, "wait", "往返传播时延", "ms", one_way=one_way, both_ways=rtt, distance=distance, speed=speed)
        cycle = "transmit + wait"
        if ack is not None:
            p.in_base("ack", ack.group(1), ack.group(2), FRAME, "确认帧长", "bit")
            p.line("ack_transmit", "ack / rate * 1000", "确认帧的发送时延", "ms")
            cycle += " + ack_transmit"
        p.line("cycle", cycle, "发送一帧到收到确认的时间", "ms")
        p.line("answer", "round(transmit / cycle * 100, 2)", "信道利用率", "%")
        return p.source()
