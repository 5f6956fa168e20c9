"""Random valid hardware configs (docs/hwconfig.md: ranges and cross-field rules).

Sizes are drawn around the bundled presets, towards the small end (tiny
scratchpads, few banks, narrow DRAM) where tiling has to work hardest; the
array may be non-square. A config too small for a graph is an expected
compile error (the compiler states the bytes needed) and counts as skipped,
not failed (harness.py)."""

PRESETS = ["tiny-4x4", "rtl-8x8", "edge-16x16", "default-32x32"]
# The configs the RTL backend has verilated (SYSTOLE_RTL_CONFIGS default).
RTL_PRESETS = ["tiny-4x4", "rtl-8x8"]


def _pow2(rng, lo, hi):
    return 1 << int(rng.integers(lo, hi + 1))


def random_hw(rng, name="fuzz", min_token_depth=1):
    rows = int(rng.choice([1, 2, 3, 4, 5, 7, 8, 12, 16, 32]))
    cols = int(rng.choice([1, 2, 3, 4, 6, 8, 9, 16, 32]))
    dataflows = [["ws", "os"], ["ws"], ["os"], ["os", "ws"]][int(rng.integers(4))]
    sp_banks = _pow2(rng, 0, 4)
    sp_bytes = _pow2(rng, 12, 19)          # 4 KiB .. 512 KiB
    if rng.random() < 0.3:                  # a non power of two size, still a multiple of the banks
        sp_bytes = sp_banks * int(rng.integers(max(1, 1024 // sp_banks + 1), 65536 // sp_banks + 1))
    sp_bytes = max(sp_bytes, 1024)
    acc_banks = _pow2(rng, 0, 3)
    acc_bytes = 4 * acc_banks * int(rng.integers(max(1, 256 // acc_banks), 16384 // acc_banks + 1))
    bpc = _pow2(rng, 0, 5)                  # 1 .. 32 B/cycle
    burst = bpc * _pow2(rng, 0, 3)
    cfg = {
        "name": name,
        "array": {"rows": rows, "cols": cols, "dataflows": dataflows},
        "sram": {"scratchpad_bytes": int(sp_bytes), "scratchpad_banks": sp_banks,
                 "accumulator_bytes": int(acc_bytes), "accumulator_banks": acc_banks},
        "dram": {"bytes_per_cycle": bpc, "latency_cycles": int(rng.choice([0, 1, 10, 50, 100, 300])),
                 "burst_bytes": burst, "capacity_bytes": 1 << 32},
        "vector": {"lanes": int(rng.choice([1, 2, 3, 4, 5, 8, 16, 32])),
                   "pipeline_depth": int(rng.choice([0, 1, 2, 4, 7])),
                   "requant_overlap": int(rng.integers(2))},
        "queues": {"cmd_depth": int(rng.choice([1, 2, 3, 4, 8, 16, 64])),
                   "token_depth": max(min_token_depth, int(rng.choice([1, 2, 3, 4, 8, 16])))},
        "clock_mhz": 1000,
    }
    # Drawn last so the other fields of a seed's config stay what they were.
    cfg["array"]["matmul_inflight"] = int(rng.choice([1, 1, 2, 3, 4]))
    # The depthwise engine's taps per lane (kernel rows of 3 and 5 taps in
    # one beat, in several, or with a partial last beat); drawn after the
    # others for the same reason.
    cfg["vector"]["dwconv_taps"] = int(rng.choice([1, 1, 2, 3, 5]))
    return cfg
