"""Calculation rule of TCP's congestion control: the congestion window after some rounds. See
pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_text import Program, Rule, alternative, mentioned, unique

# a window in segments (个报文段, MSS) or in KB (with an MSS of 1 KB stated: then KB are segments)
_UNIT = r"\s*(KB|K|个报文段|个MSS|MSS|个最大报文段)?"


class CongestionWindow(Rule):
    """拥塞窗口 (cwnd) after n transmission rounds (8个RTT后) in which every segment is acknowledged,
    under slow start and congestion avoidance (simulations.tcp_windows: doubling up to the threshold,
    then one segment a round). Starts from the window stated (初始为1KB; else one segment, slow start's
    own start) and the threshold stated (ssthresh=16KB); or after a timeout at a window stated (在cwnd=16
    时发生超时: the threshold becomes half that window, the window one segment). Windows in segments,
    or in KB with an MSS of 1 KB stated. Fast retransmit or recovery (三个重复确认), a receive window
    that limits, or an MSS of another size: no program."""

    name = "congestion_window"
    _THRESHOLD = rf"(?:慢开始门限|慢启动门限|门限值?|阈值|ssthresh)\s*(?:ssthresh)?\s*(?:的值)?(?:为|是|=)?\s*(\d+){_UNIT}"
    _START = (rf"(?:cwnd|拥塞窗口)\s*(?:cwnd)?\s*(?:的)?(?:初始值|初始|初值)(?:为|是|=)?\s*(\d+){_UNIT}"
              rf"|(?:一开始|开始时|最初|起初|初始)的?(?:拥塞窗口)?\s*(?:cwnd)?\s*(?:为|是|=)\s*(\d+){_UNIT}")
    _TIMEOUT = (rf"(?:cwnd|拥塞窗口)\s*(?:cwnd)?\s*(?:为|是|=|达到|增长到|增大到|涨到)?\s*(\d+){_UNIT}\s*时"
                r"[^,，。；]{0,6}?(?:发生|出现)?了?(?:超时|拥塞)")
    _ROUNDS = r"(\d+)\s*个\s*(?:RTT|往返时间|往返时延|传输轮次|轮次)|(\d+)\s*轮(?:传输)?"
    _MSS = (r"(?:MSS|最大报文段长度?|最大段长)\s*(?:MSS)?\s*(?:为|是|=)?\s*(\d+)\s*(KB|K|B|字节)"
            r"|(\d+)\s*(KB|K|B|字节)\s*的\s*(?:最大段长|最大报文段长度?|MSS)")  # 以1KB的最大段长发送
    _ASK = (r"cwnd\s*(?:的值)?(?:为|是|变为|变成|等于|应为)?\s*(?:多少|几)"
            r"|拥塞窗口\s*(?:cwnd)?\s*(?:的)?(?:大小|值)?(?:为|是|变为|变成|等于|应为)?\s*(?:多少|几)"
            r"|(?:求|计算|算出)[^。？?]{0,40}拥塞窗口\s*(?:cwnd)?\s*(?:的)?(?:大小|值)")
    _ASK_THRESHOLD = r"(?:新的|新)(?:慢开始)?(?:门限|阈值)|ssthresh\s*(?:变为|为|是)?(?:多少|几)"

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or re.search(r"快重传|快恢复|重复确认|重复的确认|冗余ACK|重复ACK|发送窗口", q):
            return None
        loss = r"丢失|丢包|超时(?!后|以后|之后)|发生拥塞|出现拥塞|网络拥塞"  # not the timeout the rule reads
        if re.search(r"接收窗口[^,，。；]{0,8}\d", q) or mentioned(loss, re.sub(self._TIMEOUT, "", q)):
            return None  # a receive window that may limit; a loss the rule does not place
        rounds, timeout = unique(self._ROUNDS, q), unique(self._TIMEOUT, q)
        threshold, start, mss = unique(self._THRESHOLD, q), unique(self._START, q), unique(self._MSS, q)
        if rounds is None or (timeout is None) == (threshold is None) or (timeout is not None and start is not None):
            return None
        units = {m.group(2) or m.group(4) if m.re.pattern == self._START else m.group(2)
                 for m in (threshold, start, timeout) if m is not None} - {None}
        size = alternative(mss, 2) if mss is not None else None
        if units & {"KB", "K"}:
            if size is None or size[0] != "1" or size[1] not in ("KB", "K"):
                return None  # KB are segments only with an MSS of 1 KB
        elif mss is not None:
            return None
        unit = "KB" if units & {"KB", "K"} else "MSS"
        p = Program()
        if mss is not None:
            p.given("mss", size[0], "最大报文段长度", "KB")
        if timeout is not None:
            p.given("at_timeout", timeout.group(1), "超时时的拥塞窗口", unit)
            asked = bool(re.search(self._ASK_THRESHOLD, q))  # the new threshold, asked too: a conclusion
            p.line("answer_ssthresh" if asked else "ssthresh", "at_timeout // 2", "新的慢开始门限", unit)
            if asked:
                p.line("ssthresh", "answer_ssthresh", "新的慢开始门限", unit)
            p.line("cwnd", "1", "超时后的拥塞窗口", unit)
        else:
            p.given("ssthresh", threshold.group(1), "慢开始门限", unit)
            p.given("cwnd", (start.group(1) or start.group(3)) if start else "1", "初始拥塞窗口", unit)
        p.given("rounds", rounds.group(1) or rounds.group(2), "传输轮次")
        p.line("windows", "tcp_windows(cwnd, ssthresh, rounds)", "各轮次后的拥塞窗口")
        p.line("answer", "windows[rounds - 1]", "拥塞窗口", unit)
        return p.source()
