// RUN: systole-opt %s --systole-expand-bf16 | FileCheck %s

// float32 -> bfloat16 rounds to nearest even in integer arithmetic (no
// __truncsfbf2 call), bfloat16 -> float32 is a shift.
// CHECK-LABEL: func.func @round_trip
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast
// CHECK: arith.shrui
func.func @round_trip(%x: f32) -> f32 {
  %b = arith.truncf %x : f32 to bf16
  %y = arith.extf %b : bf16 to f32
  return %y : f32
}
