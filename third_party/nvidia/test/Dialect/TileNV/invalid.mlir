// RUN: kiln-opt %s -split-input-file -verify-diagnostics

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @not_a_word(%b: !tile.memdesc<2xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_init' op barrier must be a one-element i64 shared buffer (an mbarrier word, e.g. allocate_shared_memory(int64, [1], MBarrierLayout())), got '!tile.memdesc<2xi64, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>'}}
  tile_nv.mbarrier_init %b, 1 : !tile.memdesc<2xi64, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @not_i64(%b: !tile.memdesc<1xi32, #sh, mutable>, %ph: i32) {
  // expected-error @+1 {{'tile_nv.mbarrier_wait' op barrier must be a one-element i64 shared buffer}}
  tile_nv.mbarrier_wait %b, %ph : !tile.memdesc<1xi32, #sh, mutable>, i32
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @immutable(%b: !tile.memdesc<1xi64, #sh>) {
  // expected-error @+1 {{'tile_nv.mbarrier_invalidate' op barrier must be mutable, got '!tile.memdesc<1xi64, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>'}}
  tile_nv.mbarrier_invalidate %b : !tile.memdesc<1xi64, #sh>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @count_zero(%b: !tile.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_init' op count must be in [1, 1048575], got 0}}
  tile_nv.mbarrier_init %b, 0 : !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @arrive_count(%b: !tile.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_arrive' op count must be in [1, 1048575], got 2000000}}
  tile_nv.mbarrier_arrive %b, 2000000 : !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @bytes(%b: !tile.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tile_nv.mbarrier_expect' op bytes must be in [0, 1048575], got -4}}
  tile_nv.mbarrier_expect %b, -4 : !tile.memdesc<1xi64, #sh, mutable>
  return
}

// -----

// Transaction bytes and try_wait.parity are sm_90 features.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @expect_sm80(%b: !tile.memdesc<1xi64, #sh, mutable>) {
    // expected-error @+1 {{'tile_nv.mbarrier_expect' op mbarrier.arrive.expect_tx needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.mbarrier_expect %b, 16 : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.target = "cuda:sm_80"} {
  func.func @wait_sm80(%b: !tile.memdesc<1xi64, #sh, mutable>, %ph: i32) {
    // expected-error @+1 {{'tile_nv.mbarrier_wait' op mbarrier.try_wait.parity needs sm_90 or later; cuda:sm_80 has none}}
    tile_nv.mbarrier_wait %b, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
}
