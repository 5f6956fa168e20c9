// RUN: systole-opt %s --split-input-file --verify-diagnostics

// A field that does not fit its bits is named with its width.
npu.program "tiny-4x4" {
  npu.segment 0 "s" {
    // expected-error @+1 {{'npu.load' op field 'n0' = 70000 does not fit: 16 unsigned bits}}
    npu.load {sram = sp, elem_bytes = 1, n0 = 70000, n1 = 1, n2 = 1, n3 = 1}
    npu.end
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "s" {
    // expected-error @+1 {{'npu.requant' op field 'zp' = 200 does not fit: 8 signed bits}}
    npu.requant {zp = 200, m = 1, n = 1}
    npu.end
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "s" {
    // expected-error @+1 {{npu.load has no field 'stride'}}
    npu.load {sram = sp, stride = 4}
    npu.end
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "s" {
    // expected-error @+1 {{field 'sram': 'dram' is not a Memory value}}
    npu.load {sram = dram}
    npu.end
  }
}

// -----

// The generic form is checked by ODS: a field of the wrong type is named.
npu.program "tiny-4x4" {
  npu.segment 0 "s" {
    // expected-error @+1 {{'npu.matmul' op attribute 'm' failed to satisfy constraint: 64-bit signless integer attribute}}
    "npu.matmul"() {m = "six", operandSegmentSizes = array<i32: 0, 0>, resultSegmentSizes = array<i32: 0, 0>} : () -> ()
    npu.end
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "s" {
    %t = npu.fence push_next {queue = load}
    // expected-error @+1 {{'npu.load' op pop_prev: the load queue has no such neighbour}}
    npu.load pop_prev %t {sram = sp, elem_bytes = 1, n0 = 4, n1 = 1, n2 = 1, n3 = 1}
    npu.end
  }
}

// -----

// FIFOs are in order: the first pop takes the first push.
npu.program "tiny-4x4" {
  npu.segment 0 "s" {
    %a = npu.fence push_next {queue = load}
    %b = npu.fence push_next {queue = load}
    // expected-error @+1 {{'npu.fence' op pops token #0 of FIFO load->compute but names another push (FIFOs are in order: the k-th pop takes the k-th push)}}
    npu.fence pop_prev %b {queue = compute}
    npu.fence pop_prev %a {queue = compute}
    npu.end
  }
}

// -----

npu.program "tiny-4x4" {
  // expected-error @+1 {{'npu.segment' op FIFO load->compute: 1 pushes but 0 pops}}
  npu.segment 0 "s" {
    %a = npu.fence push_next {queue = load}
    npu.end
  }
}

// -----

npu.program "tiny-4x4" {
  // expected-error @+1 {{'npu.segment' op must end with npu.end}}
  npu.segment 0 "s" {
    npu.fence {queue = load}
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "s" {
    // expected-error @+1 {{'npu.end' op before the end of the segment}}
    npu.end
    npu.end
  }
}

// -----

// Against the hardware config: 8 columns do not fit a 4x4 array.
npu.program "tiny-4x4" {
  npu.segment 0 "s" {
    // expected-error @+1 {{'npu.matmul' op matmul.n: 8 exceeds array.cols 4}}
    npu.matmul {dataflow = ws, preload, a_m_inner_stride = 8, b_stride = 8, a_m_inner = 1000, a_k_inner = 4, m = 1, k = 4, n = 8, b_addr = 64, c_stride = 8}
    npu.end
  }
}

// -----

// Tokens that pair but wait on each other: the queues deadlock.
npu.program "tiny-4x4" {
  // expected-error @+1 {{'npu.segment' op token deadlock: compute queue waits at instruction #0 (fence) for a store->compute token; store queue waits at instruction #1 (fence) for a compute->store token}}
  npu.segment 0 "s" {
    %c2s = npu.fence pop_next %s2c push_next {queue = compute}
    %s2c = npu.fence pop_prev %c2s push_prev {queue = store}
    npu.end
  }
}

// -----

// expected-error @+1 {{hardware config 'no-such-preset' is neither a file nor a bundled preset}}
npu.program "no-such-preset" {
  npu.segment 0 "s" {
    npu.end
  }
}

// -----

// expected-error @+1 {{'npu.end' op expects parent op to be one of 'npu.segment, npu.item'}}
npu.end
