; One WS matmul tile on the tiny 4x4 array: A (6x4) and B (4x4) into SP, the
; fp32 scales into ACC, C = A*B, requantize to int8, store. Canonical text:
; `systole objdump -d` of the assembled binary reproduces this file.
; Systole NPU assembly (format 1.0)
.producer "hand-written"
.hw "tiny-4x4"
.dram_size 4096
.region "weights" constants 0 1024
.region "io" io 1024 1024
.tensor "a" input int8 [6,4] 1024 24 scales=[0.5] zero_points=[0] axis=-1
.tensor "c" output int8 [6,4] 1536 24 scales=[0.25] zero_points=[-3] axis=-1
.const "b" 0 01000000000100000000010000000001
.const "scale" 64 0000003f0000003f0000003f0000003f
.segment "main"
  load sram=sp elem_bytes=1 dram_addr=1024 n0=4 n1=6 n2=1 n3=1 s1=4 t1=4
  load sram=sp elem_bytes=1 sram_addr=64 n0=4 n1=4 n2=1 n3=1 s1=4 t1=4
  load push_next=1 sram=acc elem_bytes=4 sram_addr=512 dram_addr=64 n0=4 n1=1 n2=1 n3=1
  matmul pop_prev=1 dataflow=ws preload=1 a_m_inner_stride=4 b_stride=4 a_m_inner=1000 a_k_inner=4 m=6 k=4 n=4 b_addr=64 c_stride=4
  requant push_next=1 zp=-3 lo=-128 hi=127 c_stride=4 scale_addr=512 o_addr=128 o_stride=4 m=6 n=4
  store pop_prev=1 sram=sp elem_bytes=1 sram_addr=128 dram_addr=1536 n0=4 n1=6 n2=1 n3=1 s1=4 t1=4
  end
.layer "gemm" 0 0 7
