; A matmul accumulating into words past the end of the accumulator.
.hw "tiny-4x4"
.dram_size 4096
.segment "main"
  matmul dataflow=ws preload=1 m=4 k=4 n=4 a_m_inner=1000 a_k_inner=4 a_m_inner_stride=4 b_stride=4 c_addr=0x7fffffff c_stride=4
  end
