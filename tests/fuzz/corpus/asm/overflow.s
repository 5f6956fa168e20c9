; Five loads push load->compute tokens while a long REQUANT keeps the compute
; queue busy: the fifth push finds the 4-deep FIFO full. The verifier cannot
; see this (it depends on timing); the cycle simulator reports it.
.hw "tiny-4x4"
.dram_size 4096
.segment "main"
  requant m=200 n=4 c_stride=4 o_addr=8192 o_stride=4 lo=-128 hi=127
  load push_next=1 sram=sp elem_bytes=1 dram_addr=0 n0=16 n1=1 n2=1 n3=1
  load push_next=1 sram=sp elem_bytes=1 dram_addr=16 sram_addr=16 n0=16 n1=1 n2=1 n3=1
  load push_next=1 sram=sp elem_bytes=1 dram_addr=32 sram_addr=32 n0=16 n1=1 n2=1 n3=1
  load push_next=1 sram=sp elem_bytes=1 dram_addr=48 sram_addr=48 n0=16 n1=1 n2=1 n3=1
  load push_next=1 sram=sp elem_bytes=1 dram_addr=64 sram_addr=64 n0=16 n1=1 n2=1 n3=1
  fence queue=compute pop_prev=1
  fence queue=compute pop_prev=1
  fence queue=compute pop_prev=1
  fence queue=compute pop_prev=1
  fence queue=compute pop_prev=1
  end
