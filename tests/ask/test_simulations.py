"""The maintained simulations a calculation program calls (pipeline/ask/simulations.py), against
examples worked by hand below (our own reference strings, weights and keys)."""

from __future__ import annotations

import pytest

from pipeline.ask.simulations import (
    MAX_ITEMS,
    catalan,
    fcfs_seek,
    float_hex,
    fifo_faults,
    huffman_wpl,
    linear_probe,
    lru_faults,
    opt_faults,
    sstf_seek,
)

# One string on which the three policies differ, 3 frames, starting empty (cold misses count).
REFS = [1, 2, 3, 1, 4, 1, 5, 2, 1, 3]


def test_fifo_by_hand():
    # 1 m [1]; 2 m [1 2]; 3 m [1 2 3]; 1 hit; 4 m, out 1 → [2 3 4]; 1 m, out 2 → [3 4 1];
    # 5 m, out 3 → [4 1 5]; 2 m, out 4 → [1 5 2]; 1 hit; 3 m, out 1 → [5 2 3]: 8 faults
    assert fifo_faults(REFS, 3) == 8


def test_lru_by_hand():
    # least recently used first: 1 m [1]; 2 m [1 2]; 3 m [1 2 3]; 1 hit [2 3 1]; 4 m, out 2 [3 1 4];
    # 1 hit [3 4 1]; 5 m, out 3 [4 1 5]; 2 m, out 4 [1 5 2]; 1 hit [5 2 1]; 3 m, out 5 [2 1 3]: 7
    assert lru_faults(REFS, 3) == 7


def test_opt_by_hand():
    # 1 2 3 m m m; 1 hit; 4 m: next uses 1→now+1, 2→+3, 3→+5, so out 3 → [1 2 4]; 1 hit;
    # 5 m: 2 next, then 1, 4 never → out 4 → [1 2 5]; 2 hit; 1 hit; 3 m (nothing follows): 6
    assert opt_faults(REFS, 3) == 6


@pytest.mark.parametrize("policy", [fifo_faults, lru_faults, opt_faults])
def test_policies_agree_where_the_answer_is_forced(policy):
    # one frame: a fault whenever the page changes: 2 m, 2 hit, 3 m, 2 m → 3
    assert policy([2, 2, 3, 2], 1) == 3
    # frames for every distinct page: only the cold misses, one per distinct page (5, 6, 7)
    assert policy([5, 6, 5, 7, 6, 5], 3) == 3
    assert policy([], 2) == 0


@pytest.mark.parametrize("policy", [fifo_faults, lru_faults, opt_faults])
def test_policies_check_their_inputs(policy):
    with pytest.raises(TypeError):
        policy("1 2 3", 3)
    with pytest.raises(TypeError):
        policy([1, True, 2], 3)  # a bool is not a page number
    with pytest.raises(TypeError):
        policy([1, 2.5], 3)
    with pytest.raises(ValueError):
        policy([1, 2], 0)
    with pytest.raises(ValueError):
        policy([0] * (MAX_ITEMS + 1), 3)


def test_huffman_by_hand():
    # merge 2+3=5, 5+5=10, 7+10=17, 11+17=28; inner nodes 5+10+17+28 = 60. By depths: 11·1 + 7·2 + 5·3
    # + 2·4 + 3·4 = 11+14+15+8+12 = 60
    assert huffman_wpl([2, 3, 5, 7, 11]) == 60
    assert huffman_wpl([11, 2, 7, 3, 5]) == 60  # order does not matter
    # four equal weights: a balanced tree, 4 leaves at depth 2 → 8 (ties broken any way give 8)
    assert huffman_wpl([1, 1, 1, 1]) == 8
    assert huffman_wpl([1, 9]) == 10
    assert huffman_wpl([4]) == 0  # one leaf at the root
    assert huffman_wpl([0.5, 0.25, 0.25]) == pytest.approx(1.5)  # 0.25+0.25=0.5, 0.5+0.5=1 → 1.5


def test_huffman_checks_its_inputs():
    for bad in ([], [1, 0], [1, -2], [1, True], "123"):
        with pytest.raises((TypeError, ValueError)):
            huffman_wpl(bad)


def test_linear_probe_wraps_around():
    # m = 7: every key is 3 mod 7 → slots 3, 4, 5, 6, then 0 (wrapped); probes 1+2+3+4+5 = 15, / 5 = 3
    assert linear_probe([10, 24, 3, 17, 31], 7) == 3.0


def test_linear_probe_with_a_smaller_modulus():
    # m = 8, H = k % 7: 7→0 (1), 14→0 taken→1 (2), 6→6 (1), 13→6 taken→7 (2), 15→1 taken→2 (2): 8/5
    assert linear_probe([7, 14, 6, 13, 15], 8, 7) == pytest.approx(1.6)
    # the same keys with H = k % 8: 7→7 (1), 14→6 (1), 6→6,7 taken→0 (3), 13→5 (1), 15→7,0 taken→1 (3): 9/5
    assert linear_probe([7, 14, 6, 13, 15], 8) == pytest.approx(1.8)


def test_linear_probe_checks_its_inputs():
    with pytest.raises(ValueError):
        linear_probe([1, 1], 5)  # duplicate keys
    with pytest.raises(ValueError):
        linear_probe([1, 2, 3], 2)  # more keys than slots
    with pytest.raises(ValueError):
        linear_probe([1, 2], 5, 6)  # mod larger than the table
    with pytest.raises(ValueError):
        linear_probe([], 5)
    with pytest.raises(TypeError):
        linear_probe([1.5], 5)


def test_hamming_check_bits():
    from pipeline.ask.simulations import hamming_bits

    # r is the least with 2**r >= n + r + 1: n=4 → 3 (8 >= 8), n=11 → 4 (16 >= 16), n=12 → 5 (16 < 17), n=32 → 6 (64 >= 39)
    assert [hamming_bits(n) for n in (1, 4, 11, 12, 32)] == [2, 3, 4, 5, 6]
    with pytest.raises(ValueError):
        hamming_bits(0)


def test_binary_search_asl_by_hand():
    from pipeline.ask.simulations import binary_search_asl

    # n = 7: a full tree, 1 + 2·2 + 3·4 = 17 comparisons; n = 10: mid 5 (1); 2, 8 (2); 1, 3, 6, 9 (3);
    # 4, 7, 10 (4): 1 + 4 + 12 + 12 = 29. n = 12: mid 6 (1); 3, 9 (2); 1, 4, 7, 11 (3); 2, 5, 8, 10, 12 (4):
    # 1 + 4 + 12 + 20 = 37
    assert binary_search_asl(1) == 1.0
    assert binary_search_asl(3) == pytest.approx(5 / 3)  # mid 2, then 1 and 3
    assert binary_search_asl(7) == pytest.approx(17 / 7)
    assert binary_search_asl(10) == pytest.approx(2.9)
    assert binary_search_asl(12) == pytest.approx(37 / 12)
    from pipeline.ask.simulations import binary_search_comparisons

    assert [binary_search_comparisons(n) for n in (1, 3, 7, 10, 12)] == [1, 5, 17, 29, 37]
    for bad in (0, -1, True, 2.5):
        with pytest.raises((TypeError, ValueError)):
            binary_search_asl(bad)


def test_crc_remainder_by_hand():
    from pipeline.ask.simulations import crc_remainder, to_bits

    # 1101011011 0000 ÷ 10011 (x^4+x+1), worked mod 2 in the textbooks: remainder 1110
    assert crc_remainder("1101011011", "10011") == "1110"
    # 1010001101 00000 ÷ 110101: remainder 01110, its leading zero kept
    assert crc_remainder("1010001101", "110101") == "01110"
    # 10110 is x·(x^3+x+1): a multiple of the generator leaves 000
    assert crc_remainder("10110", "1011") == "000"
    assert to_bits(2 ** 4 + 2 + 1) == "10011" and to_bits(0) == "0"
    for info, generator in (("1021", "1011"), ("", "1011"), ("1011", "1"), ("1011", "0110"), (1011, "1011")):
        with pytest.raises(ValueError):
            crc_remainder(info, generator)
    with pytest.raises(ValueError):
        to_bits(-1)


def test_an_ipv4_address_to_its_value_and_back():
    from pipeline.ask.simulations import ip_value, to_dotted

    assert ip_value([192, 168, 1, 2]) == 3232235778 and to_dotted(3232235778) == "192.168.1.2"
    assert to_dotted(0) == "0.0.0.0" and to_dotted(2 ** 32 - 1) == "255.255.255.255"
    for bad in ([1, 2, 3], [1, 2, 3, 256], [1, 2, 3, -1]):
        with pytest.raises((TypeError, ValueError)):
            ip_value(bad)
    for bad in (-1, 2 ** 32, 1.5):
        with pytest.raises(ValueError):
            to_dotted(bad)


def test_tcp_windows_by_hand():
    from pipeline.ask.simulations import tcp_windows

    # doubling stops at the threshold (8, not 16), then one more a round
    assert tcp_windows(1, 8, 6) == [2, 4, 8, 9, 10, 11]
    assert tcp_windows(1, 6, 4) == [2, 4, 6, 7]
    assert tcp_windows(10, 8, 2) == [11, 12]  # already past the threshold: congestion avoidance
    for bad in ((0, 8, 2), (1, 8, 0), (1, 8, 10 ** 6), (1.5, 8, 2)):
        with pytest.raises((TypeError, ValueError)):
            tcp_windows(*bad)


def test_to_hex_writes_the_exam_s_hex():
    from pipeline.ask.simulations import to_hex

    assert to_hex(129596) == "1FA3CH" and to_hex(0) == "0H" and to_hex(6716) == "1A3CH"
    for bad in (-1, 2.5, True, "12"):
        with pytest.raises(ValueError):
            to_hex(bad)


def test_every_simulation_is_callable_by_the_sandbox():
    from pipeline.ask.program_check import SIMULATION_FUNCTIONS
    from pipeline.ask.simulations import SIMULATIONS

    assert set(SIMULATION_FUNCTIONS) == set(SIMULATIONS)


def test_linear_probe_table_probes_and_misses_by_hand():
    from pipeline.ask.simulations import EMPTY, linear_probe_misses, linear_probe_probes, linear_probe_table

    # m = 13, H = k % 13: 26→0 (1); 39→0 taken→1 (2); 14→1 taken→2 (2); 1→1,2 taken→3 (3); 27→1..3 taken→4 (4)
    keys = [26, 39, 14, 1, 27]
    assert linear_probe_table(keys, 13) == [26, 39, 14, 1, 27] + [EMPTY] * 8
    assert linear_probe_probes(keys, 13) == [1, 2, 2, 3, 4] and linear_probe(keys, 13) == pytest.approx(12 / 5)
    # unsuccessful from 0: slots 0-4 full, 5 empty: 6 comparisons; from 1: 5; 2: 4; 3: 3; 4: 2; 5-12: 1 each
    assert linear_probe_misses(keys, 13) == [6, 5, 4, 3, 2] + [1] * 8


def test_linear_probe_misses_over_the_hash_addresses_only_and_wrapping():
    from pipeline.ask.simulations import EMPTY, linear_probe_misses, linear_probe_table

    # m = 8, H = k % 7: 9→2 (1); 16→2 taken→3; 2→4; 23→5; 5→5 taken→6; 12→5,6 taken→7
    keys = [9, 16, 2, 23, 5, 12]
    assert linear_probe_table(keys, 8, 7) == [EMPTY, EMPTY, 9, 16, 2, 23, 5, 12]
    # from 2: slots 2..7 full, wraps to 0 (empty): 7 comparisons; from 3: 6 … from 6: 3; 0 and 1 empty: 1 each;
    # address 7 is no start (H gives 0..6)
    assert linear_probe_misses(keys, 8, 7) == [1, 1, 7, 6, 5, 4, 3]
    with pytest.raises(ValueError):
        linear_probe_misses([1, 2, 3], 3)  # a full table: an unsuccessful search never meets an empty slot


def test_fraction_text_keeps_the_counts():
    from pipeline.ask.simulations import fraction_text

    assert fraction_text(9, 12) == "9/12" and fraction_text(0, 5) == "0/5"
    for bad in ((1, 0), (-1, 4), (1.5, 2), (True, 2)):
        with pytest.raises((TypeError, ValueError)):
            fraction_text(*bad)


def test_catalan_counts_pop_orders_by_hand():
    """1 element: 1 order; 3 elements abc: abc acb bac bca cba (cab cannot) = 5; then 14, 42, 132."""
    assert [catalan(n) for n in range(1, 7)] == [1, 2, 5, 14, 42, 132]
    with pytest.raises(ValueError):
        catalan(31)


def test_disk_seek_by_hand():
    # 53 → 65 → 67 → 37 → 14 → 98 → 122 → 124 → 183: 12+2+30+23+84+24+2+59 = 236
    assert sstf_seek(53, [98, 183, 37, 122, 14, 124, 65, 67]) == 236
    # in the order given: 45+85+146+85+108+110+59+2 = 640
    assert fcfs_seek(53, [98, 183, 37, 122, 14, 124, 65, 67]) == 640


def test_sstf_refuses_a_tie_it_cannot_break():
    with pytest.raises(ValueError, match="equally near"):
        sstf_seek(50, [40, 60])


def test_float_codes_by_hand():
    """-2.5 = -1.01b × 2^1: sign 1, exponent 128 = 10000000, fraction 01…: C0200000H; 1.0 in double."""
    assert float_hex(-2.5, 32) == "C0200000H"
    assert float_hex(1.0, 64) == "3FF0000000000000H"
    with pytest.raises(ValueError):
        float_hex(1e39, 32)  # beyond a single's range
    with pytest.raises(ValueError):
        float_hex(1.0, 16)
