; A memory plan larger than the configured DRAM (tiny-4x4: 16 MiB).
.hw "tiny-4x4"
.dram_size 0x100000000000
.segment "main"
  end
