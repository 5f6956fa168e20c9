; A tensor whose declared size disagrees with its shape, and whose shape
; product overflows 64 bits.
.hw "tiny-4x4"
.dram_size 4096
.tensor "x" input int8 [4294967296,4294967296,16] 0 16
.segment "main"
  end
