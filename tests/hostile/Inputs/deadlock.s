; Balanced tokens that can never flow: the load waits for a compute->load
; token that compute pushes only after the load's own token arrives.
.hw "tiny-4x4"
.dram_size 4096
.segment "main"
  load pop_next=1 push_next=1 sram=sp elem_bytes=1 dram_addr=0 n0=4 n1=1 n2=1 n3=1
  fence queue=compute pop_prev=1 push_prev=1
  end
